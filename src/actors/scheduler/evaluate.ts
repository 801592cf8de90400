/**
 * Pure evaluation of the scheduler rules against one snapshot of readings and one instant. No I/O: the
 * actor (scheduler.ts) supplies the readings and the clock.
 */
import type { ReadingsSnapshot } from './readings.js';
import type { CombineMode, SchedulerConfig, SchedulerRule, UnavailablePolicy } from '../../settings/scheduler-schema.js';

export type RuleEvaluation = SchedulerRule & {
  /** What the rule compared: the metric's value, the local time 'HH:MM' for time_window, null if unavailable. */
  reading: number | boolean | string | null;
  available: boolean;
  /** The comparison's outcome (unavailable: what unavailable_policy says). Computed for disabled rules too. */
  passes: boolean;
  /** One line saying why, e.g. "cpu_percent 12.5 <= 20: passes". */
  detail: string;
};

export interface Evaluation {
  /** ISO 8601 instant the evaluation was made for. */
  checked_at: string;
  /** True when the enabled rules pass per combine_mode (no enabled rule: true). */
  conditions_met: boolean;
  combine_mode: CombineMode;
  unavailable_policy: UnavailablePolicy;
  enabled_rules: number;
  passing_rules: number;
  rules: RuleEvaluation[];
  /** Every reading of the machine, used by a rule or not, so a client can see what can be read here. */
  readings: ReadingsSnapshot;
  detail: string;
}

/** Minutes since local midnight of 'HH:MM'. */
function minutesOf(hhmm: string): number {
  const [hours, minutes] = hhmm.split(':').map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * Whether local time `now` falls in the window 'HH:MM-HH:MM': start inclusive, end exclusive, minute
 * resolution. A start after the end wraps midnight (22:00-06:00 covers 23:30 and 05:59, not 06:00).
 */
export function inTimeWindow(window: string, now: Date): boolean {
  const [startText, endText] = window.split('-');
  if (startText === undefined || endText === undefined) return false;
  const start = minutesOf(startText);
  const end = minutesOf(endText);
  const minute = now.getHours() * 60 + now.getMinutes();
  return start < end ? minute >= start && minute < end : minute >= start || minute < end;
}

function compare(operator: string, reading: number | boolean, value: number | boolean): boolean {
  switch (operator) {
    case '>=':
      return reading >= value;
    case '<=':
      return reading <= value;
    case '>':
      return reading > value;
    case '<':
      return reading < value;
    case '==':
      return reading === value;
    default:
      // Validation admits no other operator; reaching this is a bug, not input.
      throw new Error(`unknown operator ${operator}`);
  }
}

function show(reading: number | boolean): string {
  if (typeof reading === 'boolean') return reading ? 'true (plugged in)' : 'false (on battery)';
  return String(reading);
}

function evaluateRule(rule: SchedulerRule, readings: ReadingsSnapshot, now: Date, policy: UnavailablePolicy): RuleEvaluation {
  const suffix = rule.enabled ? '' : ' (rule disabled: not counted)';
  if (rule.rule === 'time_window') {
    const local = `${pad2(now.getHours())}:${pad2(now.getMinutes())}`;
    const passes = inTimeWindow(rule.value, now);
    const detail = `local time ${local} in ${rule.value}: ${passes ? 'passes' : 'fails'}${suffix}`;
    return { ...rule, reading: local, available: true, passes, detail };
  }
  const reading = readings[rule.rule];
  if (!reading.available) {
    const passes = policy === 'pass';
    const detail =
      `${rule.rule} unavailable: ${reading.reason}; unavailable_policy '${policy}' counts it as ` +
      `${passes ? 'passing' : 'not passing'}${suffix}`;
    return { ...rule, reading: null, available: false, passes, detail };
  }
  const passes = compare(rule.operator, reading.value, rule.value);
  const note = reading.note === undefined ? '' : ` [${reading.note}]`;
  const detail = `${rule.rule} ${show(reading.value)} ${rule.operator} ${String(rule.value)}: ${passes ? 'passes' : 'fails'}${note}${suffix}`;
  return { ...rule, reading: reading.value, available: true, passes, detail };
}

/**
 * Evaluates every rule (disabled ones too, for display) and combines the enabled ones: ALL needs each to
 * pass, ANY needs one. With no enabled rule there is nothing to wait for, so conditions are met.
 */
export function evaluateRules(
  config: Pick<SchedulerConfig, 'combine_mode' | 'unavailable_policy' | 'rules'>,
  readings: ReadingsSnapshot,
  now: Date,
): Evaluation {
  const rules = config.rules.map((rule) => evaluateRule(rule, readings, now, config.unavailable_policy));
  const counted = rules.filter((rule) => rule.enabled);
  const passing = counted.filter((rule) => rule.passes).length;
  let conditions_met: boolean;
  let detail: string;
  if (counted.length === 0) {
    conditions_met = true;
    detail = 'no enabled rules: conditions met';
  } else {
    conditions_met = config.combine_mode === 'ALL' ? passing === counted.length : passing > 0;
    const need = config.combine_mode === 'ALL' ? 'all must pass' : 'at least one must pass';
    detail = `${passing} of ${counted.length} enabled rules pass (${config.combine_mode}: ${need}): conditions ${conditions_met ? 'met' : 'not met'}`;
  }
  return {
    checked_at: now.toISOString(),
    conditions_met,
    combine_mode: config.combine_mode,
    unavailable_policy: config.unavailable_policy,
    enabled_rules: counted.length,
    passing_rules: passing,
    rules,
    readings,
    detail,
  };
}
