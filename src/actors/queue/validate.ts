/**
 * Checks at the queue's edge. Bad input here is a bug in the caller (the HTTP layer validates user input
 * first), so it throws, naming the field; inside, the queue trusts its data.
 */
import path from 'node:path';
import type { CoalesceEvent } from './coalesce.js';
import {
  QUEUE_ACTIONS,
  QUEUE_ITEM_STATUSES,
  type QueueFileEvent,
  type QueuePersistenceOptions,
  type QueueSettings,
  type StoredQueueItem,
} from './types.js';

export const DEFAULT_RETRY_BASE_SECONDS = 2;
export const DEFAULT_RETRY_MAX_SECONDS = 300;
export const DEFAULT_PERSISTENCE_OPTIONS: QueuePersistenceOptions = { flushIntervalMs: 250, maxBatchSize: 1000 };

const SETTING_CHECKS: Record<keyof QueueSettings, [test: (v: number) => boolean, wanted: string]> = {
  cooldownSeconds: [(v) => Number.isFinite(v) && v >= 0, 'a finite number >= 0'],
  maxConcurrency: [(v) => Number.isInteger(v) && v >= 1, 'an integer >= 1'],
  maxRetries: [(v) => Number.isInteger(v) && v >= 0, 'an integer >= 0'],
  retryBaseSeconds: [(v) => Number.isFinite(v) && v > 0, 'a finite number > 0'],
  retryMaxSeconds: [(v) => Number.isFinite(v) && v > 0, 'a finite number > 0'],
};

/** Merges `changes` over `base` and checks every field; throws naming the first bad one. */
export function checkSettings(base: Partial<QueueSettings>, changes: Partial<QueueSettings> = {}): QueueSettings {
  for (const key of Object.keys(changes)) {
    if (!(key in SETTING_CHECKS)) throw new TypeError(`settings.${key} is not a queue setting`);
  }
  const merged: Partial<QueueSettings> = {
    retryBaseSeconds: DEFAULT_RETRY_BASE_SECONDS,
    retryMaxSeconds: DEFAULT_RETRY_MAX_SECONDS,
    ...base,
    ...changes,
  };
  for (const [key, [test, wanted]] of Object.entries(SETTING_CHECKS)) {
    const value: unknown = merged[key as keyof QueueSettings];
    if (typeof value !== 'number' || !test(value)) {
      throw new RangeError(`settings.${key} must be ${wanted} (got ${String(value)})`);
    }
  }
  return merged as QueueSettings;
}

export function checkPersistenceOptions(options: Partial<QueuePersistenceOptions> = {}): QueuePersistenceOptions {
  const merged = { ...DEFAULT_PERSISTENCE_OPTIONS, ...options };
  if (!Number.isFinite(merged.flushIntervalMs) || merged.flushIntervalMs < 0) {
    throw new RangeError(`persistenceOptions.flushIntervalMs must be a finite number >= 0`);
  }
  if (!Number.isInteger(merged.maxBatchSize) || merged.maxBatchSize < 1) {
    throw new RangeError(`persistenceOptions.maxBatchSize must be an integer >= 1`);
  }
  return merged;
}

/** Checks a file event and normalises it for the coalescing rules. */
export function checkEvent(event: QueueFileEvent): CoalesceEvent {
  if (typeof event.path !== 'string' || !path.isAbsolute(event.path)) {
    throw new TypeError(`event.path must be an absolute path (got ${JSON.stringify(event.path)})`);
  }
  if (!QUEUE_ACTIONS.includes(event.action)) {
    throw new TypeError(`event.action must be one of ${QUEUE_ACTIONS.join(', ')} (got ${JSON.stringify(event.action)})`);
  }
  const dest = event.destPath ?? null;
  if (event.action === 'move') {
    if (typeof dest !== 'string' || !path.isAbsolute(dest) || dest === event.path) {
      throw new TypeError(`event.destPath must be an absolute path other than event.path for a move`);
    }
  } else if (dest !== null) {
    throw new TypeError(`event.destPath is only allowed for a move (action ${event.action})`);
  }
  const jobId = event.jobId ?? null;
  if (jobId !== null && !Number.isInteger(jobId)) throw new TypeError(`event.jobId must be an integer or null`);
  return { path: event.path, action: event.action, dest, jobId };
}

/** Why a stored item cannot be loaded, or null when it can. */
export function storedItemProblem(item: StoredQueueItem): string | null {
  if (typeof item.id !== 'string' || item.id === '') return 'id missing';
  if (typeof item.file_path !== 'string' || !path.isAbsolute(item.file_path)) return 'file_path not absolute';
  if (!QUEUE_ACTIONS.includes(item.action)) return `unknown action ${String(item.action)}`;
  if (!QUEUE_ITEM_STATUSES.includes(item.status)) return `unknown status ${String(item.status)}`;
  if ((item.action === 'move') !== (typeof item.dest_path === 'string' && item.dest_path !== item.file_path)) {
    return 'dest_path does not fit the action';
  }
  for (const key of ['enqueued_at', 'cooldown_expires_at', 'retry_count'] as const) {
    if (typeof item[key] !== 'number' || !Number.isFinite(item[key])) return `${key} not a number`;
  }
  return null;
}
