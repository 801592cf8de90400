/**
 * The body GET /api/queue/scheduler answers (and PUT, after applying a change): the configuration
 * with each rule's current reading and verdict, plus conditions_met. Pure mapping; the route calls it.
 */
import type { Evaluation, RuleEvaluation } from './evaluate.js';
import type { ReadingsSnapshot } from './readings.js';
import type { CombineMode, SchedulerConfig, UnavailablePolicy } from '../../settings/scheduler-schema.js';

export interface SchedulerResponse {
  enabled: boolean;
  combine_mode: CombineMode;
  check_interval_seconds: number;
  unavailable_policy: UnavailablePolicy;
  /** The configured rules, in order, each with reading, available, passes and detail. */
  rules: RuleEvaluation[];
  conditions_met: boolean;
  /** Whether the scheduler is holding the queue paused right now (enabled and conditions not met). */
  paused_by_scheduler: boolean;
  checked_at: string;
  detail: string;
  readings: ReadingsSnapshot;
}

/**
 * `evaluation` must have been made with `config` (take both from one scheduler.current() after a check, or
 * from the Evaluation that update()/checkNow() returned).
 */
export function schedulerResponse(config: SchedulerConfig, evaluation: Evaluation, paused: boolean): SchedulerResponse {
  return {
    enabled: config.enabled,
    combine_mode: config.combine_mode,
    check_interval_seconds: config.check_interval_seconds,
    unavailable_policy: config.unavailable_policy,
    rules: evaluation.rules,
    conditions_met: evaluation.conditions_met,
    paused_by_scheduler: paused,
    checked_at: evaluation.checked_at,
    detail: evaluation.detail,
    readings: evaluation.readings,
  };
}
