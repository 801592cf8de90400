import type { Logger } from '../logger.js';
import { CallLog, type CallFigures } from './call-log.js';
import { timeCalls, type StoreApi } from './api.js';
import { pgliteDir, storeThreadData, type StoreThread } from './thread.js';
import { WorkerStoreClient } from './worker-client.js';

export type StoreEngine = 'pglite' | 'postgres';

export interface StoreHandle {
  api: StoreApi;
  engine: StoreEngine;
  /** Where the data lives, for status (a directory, or host:port/db without credentials). */
  location: string;
  /** What the store's calls cost since it opened, and (PGlite) what searches waited behind: call-log.ts. */
  calls(): Promise<CallFigures>;
  close(): Promise<void>;
}

export interface SpawnStoreOptions {
  /** PostgreSQL server; when null the embedded PGlite engine is used. */
  databaseUrl: string | null;
  /** Service data directory; PGlite keeps its files in <dataDir>/pglite. Null: PGlite in memory (tests). */
  dataDir: string | null;
  /** PGlite's shared_buffers (MB); null or absent: sized from the database at open. */
  sharedBuffersMb?: number | null;
  logger: Logger;
  /** PGlite's thread, already started with these options (storeThreadData, openStoreThread): adopted, not started again. */
  thread?: Promise<StoreThread>;
}

export { pgliteDir };

/**
 * Starts the store actor. PostgreSQL (node-postgres is asynchronous) runs in-process; PGlite runs in its own
 * worker thread because it blocks whatever thread it is on for the length of each query.
 */
export async function spawnStore(options: SpawnStoreOptions): Promise<StoreHandle> {
  if (options.databaseUrl) {
    // Loaded only for a server: on PGlite the repositories and the driver live on the store's thread alone.
    const [{ openPostgres }, { openStore }] = await Promise.all([import('./engines/postgres.js'), import('./store.js')]);
    const db = await openPostgres(options.databaseUrl);
    try {
      const log = new CallLog();
      const api = timeCalls(await openStore(db), log);
      const url = new URL(options.databaseUrl);
      const location = `${url.hostname}:${url.port || 5432}${url.pathname}`;
      return { api, engine: 'postgres', location, calls: () => Promise.resolve(log.figures()), close: () => db.close() };
    } catch (err) {
      await db.close();
      throw err;
    }
  }
  const data = storeThreadData(options);
  const client = await WorkerStoreClient.start(data, options.logger.child({ actor: 'store' }), options.thread);
  return { api: client.api, engine: 'pglite', location: data.dataDir ?? 'memory', calls: () => client.calls(), close: () => client.close() };
}

