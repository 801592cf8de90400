import type { CallFigures } from './call-log.js';
import type { RepositoryName, StoreArgs, StoreMethod, StoreResult } from './store.js';

/** What the main thread passes to workers/store.worker.ts. */
export interface StoreWorkerData {
  /** PGlite data directory; null for an in-memory database (tests). */
  dataDir: string | null;
  /** PGlite's shared_buffers (MB); null or absent: sized from the database (engines/pglite.ts, sharedBuffersMb). */
  sharedBuffersMb?: number | null;
  /** Test seam: the log's bound and how often it is checked (engines/pglite.ts, PgliteOptions); absent: the engine's. */
  wal?: { checkpointBytes: number; checkEvery: number };
}

/** The store worker's message interface, exposed through comlink: one typed call per repository method. */
export interface StoreWorkerApi {
  /** Opens the database and applies migrations. */
  open(): Promise<void>;
  /** `sentAt`: when the call was sent (call-gate.ts, wallClock), so that its wait counts its time in the port too. */
  call<R extends RepositoryName, M extends StoreMethod<R>>(repository: R, method: M, args: StoreArgs<R, M>, sentAt?: number): Promise<StoreResult<R, M>>;
  /** What the calls cost so far, and what searches waited behind (call-log.ts). */
  calls(): Promise<CallFigures>;
  close(): Promise<void>;
}
