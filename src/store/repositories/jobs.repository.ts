import type { SqlDatabase } from '../sql.js';

export interface JobsRepository {
  countActive(): Promise<number>;
}

export function createJobsRepository(db: SqlDatabase): JobsRepository {
  return {
    async countActive() {
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM watch_jobs WHERE is_active`);
      return rows[0]?.n ?? 0;
    },
  };
}
