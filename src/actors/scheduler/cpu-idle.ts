/**
 * cpu_idle: how many seconds the CPU has *continuously* stayed below an idle threshold (default: total load
 * under 10 %). The tracker is fed measured windows — "from `from` to `to` the average load was X %" — and
 * knows nothing about where they come from, so tests drive it with plain numbers.
 *
 * A streak starts at the beginning of the first quiet window and grows with each following quiet window.
 * One window at or above the threshold resets it to 0. A window that does not start where the previous one
 * ended (a hole in the samples: the sampler stopped, the machine slept) restarts the streak at its own
 * start, because nothing is known about the hole.
 */

export const DEFAULT_IDLE_THRESHOLD_PERCENT = 10;

export interface LoadWindow {
  /** Start and end of the measured window, in milliseconds (any monotonic origin, e.g. Date.now()). */
  from: number;
  to: number;
  /** Average total CPU load over the window, 0-100. */
  loadPercent: number;
}

export interface CpuIdleTracker {
  readonly thresholdPercent: number;
  /** Adds the next measured window; windows must come in time order. */
  record(window: LoadWindow): void;
  /** Seconds of the current quiet streak up to the end of the last window; null before any window. */
  idleSeconds(): number | null;
}

export function createCpuIdleTracker(options: { thresholdPercent?: number } = {}): CpuIdleTracker {
  const thresholdPercent = options.thresholdPercent ?? DEFAULT_IDLE_THRESHOLD_PERCENT;
  if (!Number.isFinite(thresholdPercent) || thresholdPercent <= 0 || thresholdPercent > 100) {
    throw new RangeError(`thresholdPercent must be a number in (0, 100], got ${thresholdPercent}`);
  }
  let lastEnd: number | null = null;
  let streakStart: number | null = null;

  return {
    thresholdPercent,
    record({ from, to, loadPercent }) {
      if (!(to >= from) || (lastEnd !== null && from < lastEnd)) {
        throw new RangeError(`load windows must be ordered and non-overlapping (from ${from}, to ${to}, last end ${lastEnd})`);
      }
      const contiguous = lastEnd !== null && from === lastEnd;
      if (loadPercent < thresholdPercent) {
        if (streakStart === null || !contiguous) streakStart = from;
      } else {
        streakStart = null;
      }
      lastEnd = to;
    },
    idleSeconds() {
      if (lastEnd === null) return null;
      return streakStart === null ? 0 : (lastEnd - streakStart) / 1000;
    },
  };
}
