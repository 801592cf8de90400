import { migrationsDir } from '../paths.js';
import { loadMigrations, migrate } from './migrate.js';
import { createConfigRepository, type ConfigRepository } from './repositories/config.repository.js';
import { createFilesRepository, type FilesRepository } from './repositories/files.repository.js';
import { createEmbeddingsRepository, type EmbeddingsRepository } from './repositories/embeddings.repository.js';
import { createHealthRepository, type HealthRepository } from './repositories/health.repository.js';
import { createSearchRepository, type SearchRepository } from './repositories/search.repository.js';
import { createJobsRepository, type JobsRepository } from './repositories/jobs.repository.js';
import { createQueueRepository, type QueueRepository } from './repositories/queue.repository.js';
import type { SqlDatabase } from './sql.js';

/**
 * Everything the service may ask of the database, grouped by repository. Every method is async and takes and
 * returns plain data, so the same object works in-process (PostgreSQL) and across a worker thread (PGlite).
 */
export interface StoreApi {
  health: HealthRepository;
  config: ConfigRepository;
  jobs: JobsRepository;
  files: FilesRepository;
  embeddings: EmbeddingsRepository;
  queue: QueueRepository;
  search: SearchRepository;
}

export type RepositoryName = keyof StoreApi;
/** The names of repository R's methods. */
export type StoreMethod<R extends RepositoryName> = keyof StoreApi[R] & string;
export type StoreArgs<R extends RepositoryName, M extends StoreMethod<R>> = StoreApi[R][M] extends (...args: infer A) => unknown ? A : never;
export type StoreResult<R extends RepositoryName, M extends StoreMethod<R>> = StoreApi[R][M] extends (...args: never[]) => infer T ? Awaited<T> : never;

/**
 * Every method of every repository: what a client on another thread forwards (store/worker-client.ts) and what
 * the store worker dispatches to. `satisfies` makes a method missing here (or misspelt) a compile error.
 */
const METHODS = {
  health: { ping: true },
  config: { load: true, save: true, remove: true },
  jobs: { countActive: true, list: true, get: true, create: true, remove: true, setLastScan: true },
  files: {
    known: true, knownUnder: true, saveIndexed: true, saveFailed: true, touch: true, findByHash: true, saveCopy: true,
    move: true, removePaths: true, removeUnder: true, listPaths: true, get: true, stats: true, ensureVectorIndex: true,
  },
  embeddings: { stale: true, countStale: true, countByModel: true, chunkSummary: true, source: true, replace: true, copy: true },
  queue: { loadAll: true, upsert: true, remove: true },
  search: { keyword: true, semantic: true, describe: true, corrections: true, sealKeywords: true, unsealedKeywords: true, analyze: true },
} as const satisfies { [R in RepositoryName]: Record<StoreMethod<R>, true> };

/** The method names of a repository. */
export function storeMethods<R extends RepositoryName>(repository: R): StoreMethod<R>[] {
  return Object.keys(METHODS[repository]) as StoreMethod<R>[];
}

export const REPOSITORY_NAMES = Object.keys(METHODS) as RepositoryName[];

export function createStore(db: SqlDatabase): StoreApi {
  return {
    health: createHealthRepository(db),
    config: createConfigRepository(db),
    jobs: createJobsRepository(db),
    files: createFilesRepository(db),
    embeddings: createEmbeddingsRepository(db),
    search: createSearchRepository(db),
    queue: createQueueRepository(db),
  };
}

/** Brings the schema up to date (see migrate.ts), then builds the repositories. */
export async function openStore(db: SqlDatabase): Promise<StoreApi> {
  await migrate(db, await loadMigrations(migrationsDir));
  return createStore(db);
}
