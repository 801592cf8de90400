/**
 * Scheduler configuration schemas (the README's Scheduler section). A rule is a union discriminated on `rule`: each variant
 * admits only its operators and its value type, so a malformed rule cannot be stored and then "always pass"
 * (the peer's bug). The TypeBox schemas are the source of truth; validate.ts turns their verdicts into
 * messages that name the rule and the field.
 */
import { Type } from '#typebox';
import type { TSchema } from '#typebox';

/** `HH:MM-HH:MM`, 24-hour, two digits each (00-23, 00-59). */
export const TIME_WINDOW_PATTERN = '^([01][0-9]|2[0-3]):([0-5][0-9])-([01][0-9]|2[0-3]):([0-5][0-9])$';

/** Bounds of `check_interval_seconds`: from five seconds to one day. */
export const CHECK_INTERVAL_MIN_SECONDS = 5;
export const CHECK_INTERVAL_MAX_SECONDS = 86_400;
/** More rules than this is a client bug, not a configuration. */
export const MAX_RULES = 50;

function ruleVariant<const R extends string, O extends TSchema, V extends TSchema>(rule: R, operator: O, value: V) {
  return Type.Object(
    {
      rule: Type.Literal(rule),
      operator,
      value,
      // Optional on input; an omitted `enabled` means the rule takes part (see docs/scheduler.md).
      enabled: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  );
}

export const BatteryLevelRule = ruleVariant(
  'battery_level',
  Type.Enum(['>=', '<=', '>', '<', '==']),
  Type.Number({ minimum: 0, maximum: 100, description: 'battery charge in percent' }),
);
export const PowerSourceRule = ruleVariant(
  'power_source',
  Type.Enum(['==']),
  Type.Boolean({ description: 'true = plugged in (on mains power)' }),
);
export const CpuIdleRule = ruleVariant(
  'cpu_idle',
  Type.Enum(['>=']),
  Type.Number({ minimum: 0, description: 'seconds the CPU has stayed below the idle threshold' }),
);
export const CpuPercentRule = ruleVariant(
  'cpu_percent',
  Type.Enum(['<=', '>=']),
  Type.Number({ minimum: 0, maximum: 100, description: 'total CPU usage in percent' }),
);
export const CpuTemperatureRule = ruleVariant(
  'cpu_temperature',
  Type.Enum(['<=']),
  Type.Number({ minimum: -50, maximum: 150, description: 'CPU temperature in degrees Celsius' }),
);
export const FanSpeedRule = ruleVariant(
  'fan_speed',
  Type.Enum(['<=']),
  Type.Number({ minimum: 0, description: 'fastest fan in RPM' }),
);
export const TimeWindowRule = ruleVariant(
  'time_window',
  Type.Enum(['in']),
  Type.String({ pattern: TIME_WINDOW_PATTERN, description: 'local time window HH:MM-HH:MM' }),
);

/** Each rule type's variant schema, keyed by its discriminator value. */
export const RULE_VARIANTS = {
  battery_level: BatteryLevelRule,
  power_source: PowerSourceRule,
  cpu_idle: CpuIdleRule,
  cpu_percent: CpuPercentRule,
  cpu_temperature: CpuTemperatureRule,
  fan_speed: FanSpeedRule,
  time_window: TimeWindowRule,
} as const;

export type RuleType = keyof typeof RULE_VARIANTS;
export const RULE_TYPES = Object.keys(RULE_VARIANTS) as RuleType[];
/** Rule types that compare a system reading (all but time_window, which compares the clock). */
export type MetricName = Exclude<RuleType, 'time_window'>;

export const SchedulerRuleInput = Type.Union([
  BatteryLevelRule,
  PowerSourceRule,
  CpuIdleRule,
  CpuPercentRule,
  CpuTemperatureRule,
  FanSpeedRule,
  TimeWindowRule,
]);
/** A rule as a client may send it (`enabled` optional). */
export type SchedulerRuleInput = Type.Static<typeof SchedulerRuleInput>;
/** A rule after validation: `enabled` always present. */
export type SchedulerRule = SchedulerRuleInput extends infer R ? (R extends unknown ? R & { enabled: boolean } : never) : never;
export type SchedulerRuleOf<T extends RuleType> = Extract<SchedulerRule, { rule: T }>;

export const CombineMode = Type.Enum(['ALL', 'ANY']);
export type CombineMode = Type.Static<typeof CombineMode>;

/**
 * What a rule whose metric this machine cannot read counts as. `fail` (default): the rule does not pass.
 * `pass`: it passes. Either way the evaluation shows the rule as unavailable, with the reason.
 */
export const UnavailablePolicy = Type.Enum(['fail', 'pass']);
export type UnavailablePolicy = Type.Static<typeof UnavailablePolicy>;

const configFields = {
  enabled: Type.Boolean(),
  combine_mode: CombineMode,
  check_interval_seconds: Type.Integer({
    minimum: CHECK_INTERVAL_MIN_SECONDS,
    maximum: CHECK_INTERVAL_MAX_SECONDS,
  }),
  unavailable_policy: UnavailablePolicy,
  rules: Type.Array(SchedulerRuleInput, { maxItems: MAX_RULES }),
};

/** The stored scheduler configuration (as GET /api/queue/scheduler shows it, plus `unavailable_policy`). */
export const SchedulerConfigSchema = Type.Object(configFields, { additionalProperties: false });
export type SchedulerConfig = Omit<Type.Static<typeof SchedulerConfigSchema>, 'rules'> & { rules: SchedulerRule[] };

/** Body of PUT /api/queue/scheduler: every field optional, only those given change. */
export const PutSchedulerBody = Type.Object(
  {
    enabled: Type.Optional(configFields.enabled),
    combine_mode: Type.Optional(configFields.combine_mode),
    check_interval_seconds: Type.Optional(configFields.check_interval_seconds),
    unavailable_policy: Type.Optional(configFields.unavailable_policy),
    rules: Type.Optional(configFields.rules),
  },
  { additionalProperties: false },
);
export type SchedulerUpdate = Partial<SchedulerConfig>;

/** Fields of the GET response that are computed, never accepted in a PUT. */
export const READ_ONLY_CONFIG_FIELDS = ['conditions_met', 'evaluation', 'checked_at', 'readings', 'paused'] as const;
export const READ_ONLY_RULE_FIELDS = ['reading', 'available', 'passes', 'detail'] as const;
