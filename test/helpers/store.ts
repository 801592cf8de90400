import { openPglite } from '../../src/store/engines/pglite.js';
import { openPostgres } from '../../src/store/engines/postgres.js';
import type { SqlDatabase } from '../../src/store/sql.js';
import { openStore, type StoreApi } from '../../src/store/store.js';
import { createScratchDatabase, type TestEngine } from './engines.js';

export interface TestStore {
  store: StoreApi;
  db: SqlDatabase;
  close(): Promise<void>;
}

/** A migrated store on the engine, in-process (PGlite in memory, or a scratch PostgreSQL database). */
export async function openTestStore(engine: TestEngine): Promise<TestStore> {
  if (engine === 'postgres') {
    const scratch = await createScratchDatabase();
    const db = await openPostgres(scratch.url);
    return {
      store: await openStore(db),
      db,
      close: async () => {
        await db.close();
        await scratch.drop();
      },
    };
  }
  const db = await openPglite(null);
  return { store: await openStore(db), db, close: () => db.close() };
}
