import { applyKeywordSchema } from '../../../bench/lib/keyword-db.js';
import { openPglite } from '../../../src/store/engines/pglite.js';
import { openPostgres } from '../../../src/store/engines/postgres.js';
import type { SqlDatabase } from '../../../src/store/sql.js';
import { createScratchDatabase, type ScratchDatabase, type TestEngine } from '../../helpers/engines.js';

/** A fresh database of the given engine with the migrations and the keyword index applied. */
export async function openKeywordTestDb(engine: TestEngine): Promise<{ db: SqlDatabase; close: () => Promise<void> }> {
  let scratch: ScratchDatabase | null = null;
  let db: SqlDatabase;
  if (engine === 'postgres') {
    scratch = await createScratchDatabase();
    db = await openPostgres(scratch.url);
  } else {
    db = await openPglite(null);
  }
  await applyKeywordSchema(db);
  return {
    db,
    close: async () => {
      await db.close();
      await scratch?.drop();
    },
  };
}
