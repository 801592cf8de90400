import type { FilterChange, FilterMode } from '../filters/schema.js';
import type { QueueItem, QueueRemovalCause, QueueStatus } from '../actors/queue/types.js';
import type { RuleEvaluation } from '../actors/scheduler/evaluate.js';
import type { WatchJob } from '../store/repositories/jobs.repository.js';

/**
 * The event catalogue of /api/updates: one entry per event name, mapping to its payload. Later work adds kinds
 * here (and to the README's catalogue); publishers and the SSE route are typed by this map.
 */
export interface EventMap {
  /** The service finished starting. */
  service_started: { version: string; engine: 'pglite' | 'postgres' };
  /** The service is shutting down (clients will be disconnected). */
  service_stopping: { reason: string };
  /** Settings were changed through PUT /api/settings/ (the full new settings object). */
  settings_changed: { keys: string[]; settings: Record<string, Record<string, unknown>> };

  // Indexing runs: a directory scan, a single file, a watch job's initial scan or start-up reconcile.
  index_run_started: { run_id: string; kind: IndexRunKind; path: string; force: boolean };
  /** At most once a second per run. `total` is final once the files are counted (`total_final`); before, it grows. */
  index_run_progress: IndexRunProgress;
  index_run_completed: IndexRunCounts & {
    run_id: string;
    kind: IndexRunKind;
    path: string;
    total: number;
    duration_seconds: number;
    cancelled: boolean;
    /** Where the time went, summed over the run's files (with several threads the sum exceeds the duration). */
    stage_seconds: IndexRunStageSeconds;
  };

  // Per file. Stage events of a large run are rate-limited (see README); file_failed is never dropped.
  file_parsing: FileEventBase;
  file_parsed: FileEventBase & { format: string; characters: number; truncated: boolean };
  file_summarized: FileEventBase & { title: string; provider: string; fallback_reason: string | null };
  file_embedded: FileEventBase & { chunks: number; model: string };
  /** `chunks` is null when the file reused another file's (or its own earlier) chunks. */
  file_indexed: FileEventBase & { file_id: number; chunks: number | null; reused: boolean };
  /** `contains_secret`: the content check keeps the file out of the index; `detail` says what it holds. */
  file_skipped: FileEventBase & { reason: 'unchanged' | 'content_unchanged' | 'excluded' | 'contains_secret'; detail?: string };
  file_failed: FileEventBase & { file_id: number | null; code: string; error: string };
  file_removed: FileEventBase & { reason: 'deleted' | 'excluded' | 'job_removed' | 'missing' };

  // The embedding model. A change starts a background 'reembed' run (its progress is an index run's).
  /** The active embedder changed (a model appeared, was pulled, removed or could not be loaded). */
  embedder_changed: { kind: 'transformer' | 'static' | null; model: string | null; dimension: number | null; previous: string | null; reason: string };
  /** A model download (FILESIFT_MODEL_PULL=auto) progressed; at most once a second. */
  model_pull_progress: { model: string; file: string; file_index: number; file_count: number; received_bytes: number; total_bytes: number | null };
  /** A model download ended: `ok` with the folder, or the failure's `code` and `error`. */
  model_pull_completed: { model: string; ok: boolean; dir: string; code: string | null; error: string | null };
  /**
   * The filter configuration changed (PUT /api/filters/config, POST/DELETE /api/filters/pattern, reset).
   * `changed` names what changed: 'mode' and/or per-mode list fields. When `applied`, `removed` files have left
   * the index and `queued` are being indexed by run `run_id` (null when not applied).
   */
  filters_changed: FilterChange & { mode: FilterMode };
  // Watch jobs and what their watchers see (before the queue's cooldown).
  watch_added: { job: WatchJob; absorbed_job_ids: number[] };
  watch_removed: { job_id: number; path: string; files_removed: number; queue_items_removed: number };
  /** A job's watch mode changed, e.g. to polling because the OS refused more native watches (ENOSPC). */
  watch_mode_changed: { job_id: number; path: string; mode: 'native' | 'polling'; reason: string };
  /** A watcher problem that did not stop the watch. */
  watch_error: { job_id: number; path: string | null; code: string; error: string };
  file_created: WatchedFileEvent;
  file_modified: WatchedFileEvent;
  file_deleted: WatchedFileEvent;
  file_moved: WatchedFileEvent & { dest_path: string; dest_job_id: number };
  /** A folder left; `files` indexed files under it are queued for deletion. */
  folder_deleted: WatchedFileEvent & { files: number };

  // The indexing queue (items in the shape of GET /api/queue/items).
  queue_item_added: { item: QueueItem };
  queue_item_updated: { item: QueueItem };
  queue_item_processing: { item: QueueItem };
  queue_item_completed: { item: QueueItem };
  queue_item_failed: { item: QueueItem; reason: string };
  queue_item_removed: { item: QueueItem; cause: QueueRemovalCause };
  /** A pause flag changed and the queue is paused overall (payload: the queue status). */
  queue_paused: QueueStatus;
  queue_resumed: QueueStatus;

  // The scheduler's decisions (only on a change).
  scheduler_paused: SchedulerDecision;
  scheduler_resumed: SchedulerDecision;
}

export interface WatchedFileEvent {
  job_id: number;
  path: string;
}

export interface SchedulerDecision {
  conditions_met: boolean;
  detail: string;
  checked_at: string;
  rules: RuleEvaluation[];
}

export type IndexRunKind = 'directory' | 'file' | 'watch' | 'reconcile' | 'queue' | 'filters' | 'reembed';

export interface IndexRunStageSeconds {
  /** Title, summary and keywords (in the pipeline threads). */
  analyze: number;
  /** Chunking and embedding (in the pipeline threads). */
  embed: number;
  /** Writing files and their chunks to the database. */
  store: number;
}

/** Where a run stands (index_run_progress, GET /api/index/runs). */
export interface IndexRunProgress extends IndexRunCounts {
  run_id: string;
  total: number;
  total_final: boolean;
  /** Over the last 30 s or so. */
  files_per_second: number;
  /** Null until the total is final and files are moving. */
  eta_seconds: number | null;
  /** The file most recently handed to the pipeline (null before the first, and once the run is over). */
  current_path: string | null;
}

export interface IndexRunCounts {
  processed: number;
  indexed: number;
  /** Of `indexed`, files searchable by name only: no text could be read (see the file's `note`). */
  name_only: number;
  skipped: number;
  failed: number;
  removed: number;
}

export interface FileEventBase {
  /** The run the file belongs to (null for a queue item processed on its own). */
  run_id: string | null;
  path: string;
}

export type EventName = keyof EventMap;

/** Every event name, for clients and the API description (`?types=`); the check below keeps it complete. */
export const EVENT_NAMES = [
  'service_started', 'service_stopping', 'settings_changed',
  'index_run_started', 'index_run_progress', 'index_run_completed',
  'file_parsing', 'file_parsed', 'file_summarized', 'file_embedded', 'file_indexed', 'file_skipped', 'file_failed', 'file_removed',
  'embedder_changed', 'model_pull_progress', 'model_pull_completed', 'filters_changed',
  'watch_added', 'watch_removed', 'watch_mode_changed', 'watch_error',
  'file_created', 'file_modified', 'file_deleted', 'file_moved', 'folder_deleted',
  'queue_item_added', 'queue_item_updated', 'queue_item_processing', 'queue_item_completed', 'queue_item_failed', 'queue_item_removed',
  'queue_paused', 'queue_resumed', 'scheduler_paused', 'scheduler_resumed',
] as const satisfies readonly EventName[];
type MissingEventNames = Exclude<EventName, (typeof EVENT_NAMES)[number]>;
/** A compile error here names an event of EventMap missing from EVENT_NAMES. */
const _complete: [MissingEventNames] extends [never] ? true : MissingEventNames = true;

export interface BusEvent<N extends EventName = EventName> {
  /** Monotonically increasing per service run, starting at 1; used as the SSE `id`. */
  id: number;
  type: N;
  /** ISO 8601 time of publication. */
  time: string;
  data: EventMap[N];
}

/** Any event, as a discriminated union on `type` (for consumers that switch on it). */
export type AnyBusEvent = { [N in EventName]: BusEvent<N> }[EventName];
