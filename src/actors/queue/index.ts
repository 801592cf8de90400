/**
 * The queue actor's public surface. It runs in-process for now; a worker-thread `spawnQueue()` (comlink) can
 * wrap `createQueue` later without changing `QueueApi` (every method takes and returns plain data, except
 * `removeWhere`, whose predicate would cost a round trip per item across threads: use `removeUnder` there).
 */
export { createQueue, type QueueApi, type QueueOptions } from './queue.js';
export { systemClock } from './clock.js';
export type { FlushResult } from './persist-buffer.js';
export * from './types.js';
