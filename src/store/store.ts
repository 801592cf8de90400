import { migrationsDir } from '../paths.js';
import { loadMigrations, migrate } from './migrate.js';
import { createConfigRepository } from './repositories/config.repository.js';
import { createFilesRepository } from './repositories/files.repository.js';
import { createEmbeddingsRepository } from './repositories/embeddings.repository.js';
import { createHealthRepository } from './repositories/health.repository.js';
import { createSearchRepository } from './repositories/search.repository.js';
import { createJobsRepository } from './repositories/jobs.repository.js';
import { createQueueRepository } from './repositories/queue.repository.js';
import type { StoreApi } from './api.js';
import type { SqlDatabase } from './sql.js';

export * from './api.js';

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
