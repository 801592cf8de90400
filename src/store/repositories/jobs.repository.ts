import type { SqlDatabase } from '../sql.js';
import { toIsoNoZone } from '../time.js';
import { underPattern } from '../queries/params.js';

/** A watch job as the API shows it: timestamps ISO 8601 without zone (UTC). */
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

export interface NewWatchJob {
  path: string;
  recursive: boolean;
  filePattern: string | null;
}

export type CreateJobResult =
  /** `absorbed`: jobs on sub-directories, now part of the new job (their records are gone, their files moved). */
  | { ok: true; job: WatchJob; absorbed: WatchJob[] }
  /** The directory, or one above it, is already watched by `existing`. */
  | { ok: false; existing: WatchJob };

export interface JobsRepository {
  countActive(): Promise<number>;
  list(): Promise<WatchJob[]>;
  get(id: number): Promise<WatchJob | null>;
  /**
   * Adds a job in one transaction: refused when the directory or a parent is watched; jobs on sub-directories
   * are absorbed, and every indexed file under the directory now belongs to the new job.
   */
  create(job: NewWatchJob): Promise<CreateJobResult>;
  /** Deletes a job and every indexed file under its directory, in one transaction; null when unknown. */
  remove(id: number): Promise<{ job: WatchJob; filesRemoved: number } | null>;
  /** Records the end of a completed scan. */
  setLastScan(id: number, at: Date): Promise<WatchJob | null>;
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
    id: Number(r.id),
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

    async get(id) {
      const { rows } = await db.query<JobRow>(`SELECT * FROM watch_jobs WHERE id = $1`, [id]);
      return rows[0] ? toWatchJob(rows[0]) : null;
    },

    create({ path, recursive, filePattern }) {
      return db.transaction(async (tx) => {
        // The same directory, or one containing it (starts_with on a path boundary).
        const above = await tx.query<JobRow>(
          `SELECT * FROM watch_jobs
           WHERE path = $1 OR starts_with($1, CASE WHEN right(path, 1) = '/' THEN path ELSE path || '/' END)
           ORDER BY length(path) LIMIT 1`,
          [path],
        );
        if (above.rows[0]) return { ok: false as const, existing: toWatchJob(above.rows[0]) };
        const below = await tx.query<JobRow>(`SELECT * FROM watch_jobs WHERE path LIKE $1 ORDER BY id`, [underPattern(path)]);
        const { rows } = await tx.query<JobRow>(
          `INSERT INTO watch_jobs (path, recursive, file_pattern) VALUES ($1, $2, $3) RETURNING *`,
          [path, recursive, filePattern],
        );
        const job = toWatchJob(rows[0]!);
        await tx.query(`UPDATE files SET job_id = $1 WHERE path LIKE $2`, [job.id, underPattern(path)]);
        if (below.rows.length > 0) {
          await tx.query(`DELETE FROM watch_jobs WHERE id = ANY($1::bigint[])`, [below.rows.map((r) => Number(r.id))]);
        }
        return { ok: true as const, job, absorbed: below.rows.map(toWatchJob) };
      });
    },

    remove(id) {
      return db.transaction(async (tx) => {
        const { rows } = await tx.query<JobRow>(`DELETE FROM watch_jobs WHERE id = $1 RETURNING *`, [id]);
        if (!rows[0]) return null;
        const job = toWatchJob(rows[0]);
        const removed = await tx.query<{ n: number }>(
          `WITH gone AS (DELETE FROM files WHERE path LIKE $1 RETURNING 1), forgotten AS (DELETE FROM excluded_files WHERE path LIKE $1)
           SELECT count(*)::int AS n FROM gone`,
          [underPattern(job.path)],
        );
        return { job, filesRemoved: removed.rows[0]?.n ?? 0 };
      });
    },

    async setLastScan(id, at) {
      const { rows } = await db.query<JobRow>(
        `UPDATE watch_jobs SET last_scan = $2, updated_at = now() WHERE id = $1 RETURNING *`,
        [id, at],
      );
      return rows[0] ? toWatchJob(rows[0]) : null;
    },
  };
}
