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

/** The method names of each repository, so a client on another thread can mirror the shape. */
export function describeStore(store: StoreApi): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(store).map(([name, repo]) => [
      name,
      Object.keys(repo as object).filter((k) => typeof (repo as Record<string, unknown>)[k] === 'function'),
    ]),
  );
}
