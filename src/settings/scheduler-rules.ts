import Type from 'typebox';

/**
 * Scheduler rules as stored in settings (spec 2.3): each rule type admits only its own operators and value type.
 * A discriminated union on `rule`, so a rule sent with a wrong key or operator is rejected instead of silently
 * passing (the peer's bug).
 */
const enabled = Type.Optional(Type.Boolean({ default: true }));
const rule = <R extends string, O extends string[]>(name: R, operators: [...O], value: ReturnType<typeof Type.Number> | ReturnType<typeof Type.Boolean> | ReturnType<typeof Type.String>) =>
  Type.Object(
    {
      rule: Type.Literal(name),
      operator: Type.Union(operators.map((o) => Type.Literal(o))),
      value,
      enabled,
    },
    { additionalProperties: false },
  );

export const SchedulerRuleSchema = Type.Union([
  rule('battery_level', ['>=', '<=', '>', '<', '=='], Type.Number({ minimum: 0, maximum: 100 })),
  rule('power_source', ['=='], Type.Boolean()),
  rule('cpu_idle', ['>='], Type.Number({ minimum: 0 })),
  rule('cpu_percent', ['<=', '>='], Type.Number({ minimum: 0, maximum: 100 })),
  rule('cpu_temperature', ['<='], Type.Number({ minimum: -50, maximum: 150 })),
  rule('fan_speed', ['<='], Type.Number({ minimum: 0 })),
  rule('time_window', ['in'], Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]-([01][0-9]|2[0-3]):[0-5][0-9]$' })),
]);

export const SchedulerRulesSchema = Type.Array(SchedulerRuleSchema, {
  maxItems: 50,
  default: [],
  description: 'Scheduler rules (see the scheduler section of the README)',
});
