import type { SchedulerConfig, SchedulerUpdate } from '../../settings/scheduler-schema.js';

/**
 * The configuration before anyone has set one: the scheduler is off, so the queue only pauses manually.
 * A minute between checks keeps the cost of readings negligible.
 */
export const DEFAULT_SCHEDULER_CONFIG: Readonly<SchedulerConfig> = Object.freeze({
  enabled: false,
  combine_mode: 'ALL',
  check_interval_seconds: 60,
  unavailable_policy: 'fail',
  rules: [],
});

/**
 * Applies a validated PUT body: only the fields given change, and a given `rules` array replaces the whole
 * list (an empty array clears it). Returns a new object; `current` is not modified.
 */
export function applySchedulerUpdate(current: SchedulerConfig, update: SchedulerUpdate): SchedulerConfig {
  return {
    enabled: update.enabled ?? current.enabled,
    combine_mode: update.combine_mode ?? current.combine_mode,
    check_interval_seconds: update.check_interval_seconds ?? current.check_interval_seconds,
    unavailable_policy: update.unavailable_policy ?? current.unavailable_policy,
    rules: (update.rules ?? current.rules).map((rule) => ({ ...rule })),
  };
}
