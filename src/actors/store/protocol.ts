import type { RepositoryName } from '../../store/store.js';

/** What the main thread passes to workers/store.worker.ts. */
export interface StoreWorkerData {
  /** PGlite data directory; null for an in-memory database (tests). */
  dataDir: string | null;
}

/** The store worker's message interface, exposed through comlink. */
export interface StoreWorkerApi {
  /** Opens the database, applies migrations, and answers the repositories' method names. */
  open(): Promise<Record<string, string[]>>;
  call(repository: RepositoryName, method: string, args: unknown[]): Promise<unknown>;
  close(): Promise<void>;
}
