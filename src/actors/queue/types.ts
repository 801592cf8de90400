/**
 * The queue actor's data shapes and the ports it depends on. Everything here is plain data or an interface,
 * so it can cross a worker-thread boundary (comlink) unchanged.
 */

import type { QueueAction, QueueItem, QueueItemStatus, StoredQueueItem } from '../../store/repositories/queue.repository.js';

// The item shapes are what the store keeps (store/repositories/queue.repository.ts); the queue speaks them.
export type { QueueAction, QueueItem, QueueItemStatus, StoredQueueItem };

export const QUEUE_ACTIONS: readonly QueueAction[] = ['index', 'delete', 'move'];
export const QUEUE_ITEM_STATUSES: readonly QueueItemStatus[] = ['cooling_down', 'ready', 'processing'];

/** The queue's status as GET /api/queue/status answers it (the README's Queue section), in that order. */
export interface QueueStatus {
  paused: boolean; // manually_paused || scheduler_paused
  manually_paused: boolean;
  scheduler_paused: boolean;
  total_items: number;
  cooling_down: number;
  ready: number;
  processing: number;
}

/** A file event as the watcher (or a reconcile scan) reports it. */
export interface QueueFileEvent {
  path: string; // absolute
  action: QueueAction;
  /** Required for `move` (absolute, different from `path`); must be absent otherwise. */
  destPath?: string | null;
  jobId?: number | null;
}

/** Why an item left the queue without being processed to an end. */
export type QueueRemovalCause =
  /** Removed on request: DELETE /api/queue/items/{id}, or `removeWhere` (e.g. its watch job was deleted). */
  | 'request'
  /** A later event for the same path made it pointless (e.g. index → delete, or a file renamed over it). */
  | 'superseded';

export type QueueEvent =
  | { type: 'queue_item_added'; item: QueueItem }
  /** Action, status, cooldown or retry count changed. */
  | { type: 'queue_item_updated'; item: QueueItem }
  | { type: 'queue_item_processing'; item: QueueItem }
  | { type: 'queue_item_completed'; item: QueueItem }
  /** Gave up: a non-retryable failure, or `max_retries` exhausted. The item has left the queue. */
  | { type: 'queue_item_failed'; item: QueueItem; reason: string }
  | { type: 'queue_item_removed'; item: QueueItem; cause: QueueRemovalCause }
  /** Sent whenever a pause flag changes; `status.paused` says whether the queue is paused overall. */
  | { type: 'queue_paused'; status: QueueStatus }
  | { type: 'queue_resumed'; status: QueueStatus };

export type QueueEventType = QueueEvent['type'];
/** `QueueEventOf<'queue_item_failed'>` → that event's shape. */
export type QueueEventOf<T extends QueueEventType> = Extract<QueueEvent, { type: T }>;

// ---------------------------------------------------------------------------------------------------- ports

/**
 * Where items survive a restart (the store actor implements it). Writes arrive batched and coalesced: one
 * `upsert` carries up to `maxBatchSize` items, each in its latest state; a burst never becomes one write per
 * event. Implementations should apply one call in one transaction.
 */
export interface QueuePersistence {
  loadAll(): Promise<StoredQueueItem[]>;
  upsert(items: StoredQueueItem[]): Promise<void>;
  remove(ids: string[]): Promise<void>;
}

export type ProcessOutcome = { ok: true } | { ok: false; reason: string; retryable: boolean };

/**
 * Does the work for one item (the service runs it through the pipeline pool or the store). Expected failures
 * are returned, not thrown; a throw is treated as a retryable failure and reported through `onError`.
 * `signal` aborts when the item is removed while it processes.
 *
 * A `move` is a hint: the processor should check that the destination's content still matches the source's
 * record (size/mtime or hash) and fall back to "drop the source record, index the destination" when not.
 */
export interface QueueProcessor {
  process(item: StoredQueueItem, signal: AbortSignal): Promise<ProcessOutcome>;
}

export type TimerHandle = unknown;

/** Time source; milliseconds since the epoch. Injected so tests can drive time by hand. */
export interface QueueClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

// ---------------------------------------------------------------------------------------------------- settings

export interface QueueSettings {
  /** `queue.cooldown_seconds`: quiet time a path needs before it is processed (debounce). */
  cooldownSeconds: number;
  /** `queue.max_concurrency`: items processing at once. */
  maxConcurrency: number;
  /** `queue.max_retries`: failed attempts that are retried before the item is given up. */
  maxRetries: number;
  /** First retry delay; attempt n waits retryBaseSeconds × 2^(n-1). Default 2. */
  retryBaseSeconds: number;
  /** Cap on a retry delay. Default 300. */
  retryMaxSeconds: number;
}

export interface QueuePersistenceOptions {
  /** A change is written at most this long after it happened (unless a flush is asked for). Default 250. */
  flushIntervalMs: number;
  /** Items per `upsert`/`remove` call; reaching it also starts a flush at once. Default 1000. */
  maxBatchSize: number;
}
