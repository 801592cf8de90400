/**
 * The queue actor's public surface. It runs in-process for now; a worker-thread `spawnQueue()` (comlink) can
 * wrap `createQueue` later without changing `QueueApi` (every method takes and returns plain data, except
 * `removeWhere`, whose predicate would cost a round trip per item across threads: use `removeUnder` there).
 */
export { createQueue } from './queue.js';
export type { QueueApi, QueueOptions } from './api.js';
export { systemClock } from './clock.js';
export type { FlushResult } from './persist-buffer.js';
export * from './types.js';
