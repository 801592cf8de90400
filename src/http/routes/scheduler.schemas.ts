/** GET and PUT /api/queue/scheduler: the configuration with each rule's live reading and verdict (SPEC 2.2, 2.3). */
import Type, { type Static } from '#typebox';
import { CombineMode, PutSchedulerBody, RULE_TYPES, UnavailablePolicy } from '../../settings/scheduler-schema.js';
import { Instant, type Operation } from './common.schemas.js';

const Scalar = Type.Union([Type.Number(), Type.Boolean(), Type.String()]);

/** A configured rule as evaluated at `checked_at`. */
export const RuleEvaluationSchema = Type.Object(
  {
    rule: Type.Enum(RULE_TYPES),
    operator: Type.String(),
    value: Scalar,
    enabled: Type.Boolean(),
    reading: Type.Union([Scalar, Type.Null()], { description: "What the rule compared: the metric's value, the local time for time_window, null if unavailable" }),
    available: Type.Boolean(),
    passes: Type.Boolean({ description: 'The comparison (unavailable: what unavailable_policy says); computed for disabled rules too' }),
    detail: Type.String({ description: "Why, e.g. 'cpu_percent 12.5 <= 20: passes'" }),
  },
  { additionalProperties: false, title: 'RuleEvaluation' },
);

const ReadingSchema = Type.Union([
  Type.Object({ available: Type.Literal(true), value: Type.Union([Type.Number(), Type.Boolean()]), note: Type.Optional(Type.String()) }, { additionalProperties: false }),
  Type.Object({ available: Type.Literal(false), value: Type.Null(), reason: Type.String() }, { additionalProperties: false }),
]);

export const SchedulerResponseSchema = Type.Object(
  {
    enabled: Type.Boolean(),
    combine_mode: CombineMode,
    check_interval_seconds: Type.Integer({ minimum: 1 }),
    unavailable_policy: UnavailablePolicy,
    rules: Type.Array(RuleEvaluationSchema),
    conditions_met: Type.Boolean({ description: 'The enabled rules pass per combine_mode (no enabled rule: true)' }),
    paused_by_scheduler: Type.Boolean(),
    checked_at: Instant(),
    detail: Type.String(),
    readings: Type.Record(Type.String(), ReadingSchema, { description: 'Every reading of the machine, used by a rule or not' }),
  },
  { additionalProperties: false, title: 'Scheduler' },
);
export type SchedulerResponseBody = Static<typeof SchedulerResponseSchema>;

export const schedulerOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/queue/scheduler',
    tag: 'scheduler',
    summary: 'The scheduler, from a fresh check',
    answers: { 200: { description: 'Configuration, verdicts and readings', schema: SchedulerResponseSchema } },
  },
  {
    method: 'put',
    path: '/api/queue/scheduler',
    tag: 'scheduler',
    summary: 'Change the scheduler',
    description:
      'Every field optional; a given `rules` array replaces the list (each rule type admits only its operators and value type). ' +
      'Invalid input is a 400 listing every problem, naming the rule, in `errors`; nothing changes.',
    body: PutSchedulerBody,
    answers: { 200: { description: 'As GET, evaluated with the new configuration', schema: SchedulerResponseSchema } },
  },
];
