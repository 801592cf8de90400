import path from 'node:path';
import { openPglite } from '../../src/store/engines/pglite.js';
import { openPostgres } from '../../src/store/engines/postgres.js';
import type { SqlDatabase } from '../../src/store/sql.js';
import type { TestService } from './service.js';

export interface TestWatchJob {
  path: string;
  recursive?: boolean;
  file_pattern?: string | null;
  is_active?: boolean;
}

/**
 * Test-only: replaces the watch jobs by writing the watch_jobs table directly (for suites that need watched
 * folders without going through the watch API). The service is stopped while the database is opened (PGlite
 * allows one owner), then restarted so that it loads the jobs; use the returned service from then on.
 */
export async function withWatchJobs(t: TestService, jobs: readonly TestWatchJob[]): Promise<TestService> {
  await t.stop();
  const db: SqlDatabase = t.config.databaseUrl ? await openPostgres(t.config.databaseUrl) : await openPglite(path.join(t.dataDir, 'pglite'));
  try {
    await db.transaction(async (tx) => {
      await tx.query('DELETE FROM watch_jobs');
      for (const job of jobs) {
        await tx.query('INSERT INTO watch_jobs (path, recursive, file_pattern, is_active) VALUES ($1, $2, $3, $4)', [
          job.path,
          job.recursive ?? true,
          job.file_pattern ?? null,
          job.is_active ?? true,
        ]);
      }
    });
  } finally {
    await db.close();
  }
  return t.restart();
}
