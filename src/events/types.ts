import type { FilterConfig, FilterMode } from '../filters/schema.js';

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
  /** At most once a second per run. `total` grows while the walk is still finding files (`total_final` false). */
  index_run_progress: IndexRunCounts & { run_id: string; total: number; total_final: boolean; files_per_second: number; eta_seconds: number | null };
  index_run_completed: IndexRunCounts & { run_id: string; kind: IndexRunKind; path: string; total: number; duration_seconds: number; cancelled: boolean };

  // Per file. Stage events of a large run are rate-limited (see README); file_failed is never dropped.
  file_parsing: FileEventBase;
  file_parsed: FileEventBase & { format: string; characters: number; truncated: boolean };
  file_summarized: FileEventBase & { title: string; provider: string; fallback_reason: string | null };
  file_embedded: FileEventBase & { chunks: number; model: string };
  /** `chunks` is null when the file reused another file's (or its own earlier) chunks. */
  file_indexed: FileEventBase & { file_id: number; chunks: number | null; reused: boolean };
  file_skipped: FileEventBase & { reason: 'unchanged' | 'content_unchanged' | 'excluded' };
  file_failed: FileEventBase & { file_id: number | null; code: string; error: string };
  file_removed: FileEventBase & { reason: 'deleted' | 'excluded' | 'job_removed' | 'missing' };

  /**
   * The filter configuration changed (PUT /api/filters/config, POST/DELETE /api/filters/pattern, reset).
   * `changed` names what changed: 'mode' and/or per-mode list fields. When `applied`, `removed` files have left
   * the index and `queued` are being indexed by run `run_id` (null when not applied).
   */
  filters_changed: {
    mode: FilterMode;
    changed: string[];
    applied: boolean;
    removed: number;
    queued: number;
    run_id: string | null;
    config: FilterConfig;
  };
}

export type IndexRunKind = 'directory' | 'file' | 'watch' | 'reconcile' | 'queue' | 'filters';

export interface IndexRunCounts {
  processed: number;
  indexed: number;
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
