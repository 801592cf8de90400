/**
 * The scheduler actor: every `check_interval_seconds` it reads the machine, evaluates the rules, and tells
 * its owner when the queue should become paused or stop being paused. It only signals transitions; it
 * knows nothing of HTTP, the database or the queue itself.
 *
 * Pausing: paused = enabled && !conditions_met. A disabled scheduler never pauses, and disabling it
 * releases a pause it held.
 */
import { evaluateRules, type Evaluation } from './evaluate.js';
import type { ReadingsProvider } from './readings.js';
import type { SchedulerConfig } from '../../settings/scheduler-schema.js';
import { formatValidationErrors, validateSchedulerConfig } from './validate.js';

/** Time and timers, injectable so tests can step through checks without waiting. */
export interface SchedulerClock {
  now(): Date;
  /** Calls `fn` once after `ms`; returns a function that cancels it. Must not keep the process alive. */
  setTimer(fn: () => void, ms: number): () => void;
}

export const systemClock: SchedulerClock = {
  now: () => new Date(),
  setTimer(fn, ms) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

export interface SchedulerOptions {
  provider: ReadingsProvider;
  config: SchedulerConfig;
  /** Called on each transition only: true when the queue must pause, false when the scheduler releases it. */
  onDecision: (paused: boolean, evaluation: Evaluation) => void;
  /** A provider that throws or an onDecision that throws is a bug; it lands here (default: console.error). */
  onError?: (error: unknown) => void;
  clock?: SchedulerClock;
}

export interface SchedulerState {
  config: SchedulerConfig;
  /** The latest evaluation, null before the first check. */
  evaluation: Evaluation | null;
  /** Whether the scheduler is currently holding the queue paused (the last signalled decision). */
  paused: boolean;
  running: boolean;
}

export interface Scheduler {
  /** Starts periodic checks with an immediate first check. No-op when already running. */
  start(): void;
  /** Stops periodic checks; resolves once a check in flight has finished. Signals nothing. */
  stop(): Promise<void>;
  /** Applies a new configuration at once: checks now, then schedules the next check at the new interval. */
  update(config: SchedulerConfig): Promise<Evaluation>;
  /** Reads and evaluates now (checks run one at a time). Signals a transition only while running. */
  checkNow(): Promise<Evaluation>;
  current(): SchedulerState;
}

function assertConfig(config: SchedulerConfig): SchedulerConfig {
  const checked = validateSchedulerConfig(config);
  if (!checked.ok) throw new TypeError(`invalid scheduler config: ${formatValidationErrors(checked.errors)}`);
  return checked.value;
}

export function createScheduler(options: SchedulerOptions): Scheduler {
  const { provider, onDecision } = options;
  const clock = options.clock ?? systemClock;
  const onError = options.onError ?? ((error: unknown) => console.error('scheduler:', error));
  let config = assertConfig(options.config);
  let evaluation: Evaluation | null = null;
  let paused = false;
  let running = false;
  let cancelTimer: (() => void) | null = null;
  // Checks run strictly one after another; `chain` is the tail of that line.
  let chain: Promise<unknown> = Promise.resolve();

  async function runCheck(): Promise<Evaluation> {
    const readings = await provider.read();
    // Use the configuration current *after* the read, so an update made meanwhile is honoured.
    const result = evaluateRules(config, readings, clock.now());
    evaluation = result;
    const shouldPause = config.enabled && !result.conditions_met;
    if (running && shouldPause !== paused) {
      paused = shouldPause;
      try {
        onDecision(paused, result);
      } catch (error) {
        onError(error);
      }
    }
    return result;
  }

  function checkNow(): Promise<Evaluation> {
    const check = chain.then(runCheck);
    chain = check.catch(() => undefined);
    return check;
  }

  function clearTimer(): void {
    cancelTimer?.();
    cancelTimer = null;
  }

  function scheduleNext(): void {
    clearTimer();
    // A disabled scheduler has nothing to decide, so it does not poll.
    if (!running || !config.enabled) return;
    cancelTimer = clock.setTimer(tick, config.check_interval_seconds * 1000);
  }

  function tick(): void {
    cancelTimer = null;
    // scheduleNext replaces any timer another path (update) set meanwhile, so there is only ever one.
    checkNow().catch(onError).finally(scheduleNext);
  }

  return {
    start() {
      if (running) return;
      running = true;
      tick();
    },
    async stop() {
      running = false;
      clearTimer();
      await chain;
    },
    update(next) {
      config = assertConfig(next);
      clearTimer();
      const check = checkNow();
      // The caller gets the evaluation or the error; either way polling resumes at the new interval.
      void check.then(scheduleNext, scheduleNext);
      return check;
    },
    checkNow,
    current() {
      return { config, evaluation, paused, running };
    },
  };
}
