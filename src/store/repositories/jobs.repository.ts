import type { SqlDatabase } from '../sql.js';
import { toIsoNoZone } from '../time.js';

/** A watch job as the spec shows it (2.4): timestamps ISO 8601 without zone (UTC). */
export interface WatchJob {
  id: number;
  path: string;
  is_active: boolean;
  recursive: boolean;
  file_pattern: string | null;
  last_scan: string | null;
  created_at: string | null;
  updated_at: string | null;
}

export interface JobsRepository {
  countActive(): Promise<number>;
  list(): Promise<WatchJob[]>;
}

interface JobRow {
  id: number;
  path: string;
  is_active: boolean;
  recursive: boolean;
  file_pattern: string | null;
  last_scan: unknown;
  created_at: unknown;
  updated_at: unknown;
}

export function toWatchJob(r: JobRow): WatchJob {
  return {
    id: r.id,
    path: r.path,
    is_active: r.is_active,
    recursive: r.recursive,
    file_pattern: r.file_pattern,
    last_scan: toIsoNoZone(r.last_scan),
    created_at: toIsoNoZone(r.created_at),
    updated_at: toIsoNoZone(r.updated_at),
  };
}

export function createJobsRepository(db: SqlDatabase): JobsRepository {
  return {
    async countActive() {
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM watch_jobs WHERE is_active`);
      return rows[0]?.n ?? 0;
    },
    async list() {
      const { rows } = await db.query<JobRow>(`SELECT * FROM watch_jobs ORDER BY id`);
      return rows.map(toWatchJob);
    },
  };
}
