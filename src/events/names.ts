/**
 * The names of every event on the bus, as a value (the catalogue in types.ts is types only): what a client may
 * ask for with /api/updates?types=. `satisfies` makes a name missing here, or one that is not an event, a
 * compile error.
 */
import type { EventName } from './types.js';

const NAMES = {
  service_started: true,
  service_stopping: true,
  settings_changed: true,
  index_run_started: true,
  index_run_progress: true,
  index_run_completed: true,
  file_parsing: true,
  file_parsed: true,
  file_summarized: true,
  file_embedded: true,
  file_indexed: true,
  file_skipped: true,
  file_failed: true,
  file_removed: true,
  embedder_changed: true,
  model_pull_progress: true,
  model_pull_completed: true,
  filters_changed: true,
  watch_added: true,
  watch_removed: true,
  watch_mode_changed: true,
  watch_error: true,
  file_created: true,
  file_modified: true,
  file_deleted: true,
  file_moved: true,
  folder_deleted: true,
  queue_item_added: true,
  queue_item_updated: true,
  queue_item_processing: true,
  queue_item_completed: true,
  queue_item_failed: true,
  queue_item_removed: true,
  queue_paused: true,
  queue_resumed: true,
  scheduler_paused: true,
  scheduler_resumed: true,
} as const satisfies Record<EventName, true>;

export const EVENT_NAMES: readonly EventName[] = Object.freeze(Object.keys(NAMES) as EventName[]);
