import type { QueueClock, TimerHandle } from './types.js';

/** Node's setTimeout caps delays at 2^31-1 ms; longer waits are re-armed when the timer fires early. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** The real clock: wall time and Node timers. */
export const systemClock: QueueClock = {
  now: () => Date.now(),
  setTimeout: (fn: () => void, ms: number): TimerHandle => setTimeout(fn, Math.min(Math.max(ms, 0), MAX_TIMER_DELAY_MS)),
  clearTimeout: (handle: TimerHandle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};
