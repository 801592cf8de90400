import type { SqlDatabase } from '../sql.js';

export type QueueAction = 'index' | 'delete' | 'move';
export type QueueItemStatus = 'cooling_down' | 'ready' | 'processing';

/**
 * A queue item exactly as the API shows it (GET /api/queue/items), fields in the documented order. Timestamps
 * are Unix time in seconds with a fractional part (millisecond precision), like Python's `time.time()`.
 */
export interface QueueItem {
  id: string; // UUID
  file_path: string; // absolute; for a move, the source
  action: QueueAction;
  status: QueueItemStatus;
  enqueued_at: number;
  /** When the item may start: the end of its debounce cooldown, or of its retry backoff after a failure. */
  cooldown_expires_at: number;
  dest_path: string | null; // only for `move`
  retry_count: number; // failed processing attempts so far
}

/**
 * What the queue persists and hands to the processor: the public item plus internal fields. The API shows
 * `QueueItem` only (`items()` answers in that shape).
 */
export interface StoredQueueItem extends QueueItem {
  /** Watch job the path belongs to, when the watcher knows it (lets a job's deletion drop its items). */
  job_id: number | null;
  /** Reason of the last failed attempt, null when none. */
  last_error: string | null;
  /**
   * Unix seconds of the last file event that (re)started the cooldown. Null while the item waits out a retry
   * backoff. Kept so a changed `cooldown_seconds` can reschedule waiting items, also after a restart.
   */
  last_event_at: number | null;
}

/** The queue actor's persistence port (QueuePersistence): each call is one statement, so one transaction. */
export interface QueueRepository {
  loadAll(): Promise<StoredQueueItem[]>;
  upsert(items: StoredQueueItem[]): Promise<void>;
  remove(ids: string[]): Promise<void>;
}

interface QueueRow {
  id: string;
  file_path: string;
  action: QueueAction;
  status: QueueItemStatus;
  enqueued_at: number;
  cooldown_expires_at: number;
  dest_path: string | null;
  retry_count: number;
  job_id: number | null;
  last_error: string | null;
  last_event_at: number | null;
}

export function createQueueRepository(db: SqlDatabase): QueueRepository {
  return {
    async loadAll() {
      const { rows } = await db.query<QueueRow>(
        `SELECT id::text AS id, file_path, action, status, enqueued_at, cooldown_expires_at, dest_path, retry_count,
                job_id, last_error, last_event_at
         FROM queue_items ORDER BY enqueued_at, id`,
      );
      return rows.map((r) => ({ ...r, job_id: r.job_id === null ? null : Number(r.job_id) }));
    },

    async upsert(items) {
      if (items.length === 0) return;
      // One statement for the whole batch: columns as arrays, unnest()ed into rows (11 parameters, any size).
      const col = <K extends keyof StoredQueueItem>(key: K) => items.map((item) => item[key] ?? null);
      await db.query(
        `INSERT INTO queue_items (id, file_path, action, status, enqueued_at, cooldown_expires_at, dest_path, retry_count,
                                  job_id, last_error, last_event_at)
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::float8[], $6::float8[], $7::text[],
                              $8::int[], $9::bigint[], $10::text[], $11::float8[])
         ON CONFLICT (id) DO UPDATE SET
           file_path = EXCLUDED.file_path, action = EXCLUDED.action, status = EXCLUDED.status,
           enqueued_at = EXCLUDED.enqueued_at, cooldown_expires_at = EXCLUDED.cooldown_expires_at,
           dest_path = EXCLUDED.dest_path, retry_count = EXCLUDED.retry_count, job_id = EXCLUDED.job_id,
           last_error = EXCLUDED.last_error, last_event_at = EXCLUDED.last_event_at`,
        [
          col('id') as string[],
          col('file_path') as string[],
          col('action') as string[],
          col('status') as string[],
          col('enqueued_at') as number[],
          col('cooldown_expires_at') as number[],
          col('dest_path') as string[],
          col('retry_count') as number[],
          col('job_id') as number[],
          col('last_error') as string[],
          col('last_event_at') as number[],
        ],
      );
    },

    async remove(ids) {
      if (ids.length === 0) return;
      await db.query(`DELETE FROM queue_items WHERE id = ANY($1::uuid[])`, [ids]);
    },
  };
}
