/**
 * Validation of scheduler input with messages that say exactly what is wrong and where. TypeBox decides
 * (each field is checked against its own schema), but its union errors are vague ("must match a schema in
 * anyOf"), so we check the `rule` discriminator first, then each field of that rule's variant, and write
 * the messages ourselves from the schema (allowed operators, value type and range).
 */
import { Value } from '#typebox/value';
import type { TSchema } from '#typebox';
import {
  PutSchedulerBody,
  READ_ONLY_CONFIG_FIELDS,
  READ_ONLY_RULE_FIELDS,
  RULE_TYPES,
  RULE_VARIANTS,
  SchedulerConfigSchema,
  type RuleType,
  type SchedulerConfig,
  type SchedulerRule,
  type SchedulerUpdate,
} from '../../settings/scheduler-schema.js';

export interface ValidationError {
  /** Where: '' for the body itself, 'check_interval_seconds', 'rules[1].operator', ... */
  path: string;
  message: string;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: ValidationError[] };

type Json = Record<string, unknown>;

function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short, safe rendering of what the client sent. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `string '${shown}'`;
  }
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}

/** Schema fields we read to phrase messages (TypeBox schemas are plain JSON Schema objects). */
interface SchemaFacts {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  pattern?: string;
  maxItems?: number;
  properties?: Record<string, TSchema>;
  required?: string[];
}

function facts(schema: TSchema): SchemaFacts {
  return schema as unknown as SchemaFacts;
}

/** "a number from 0 to 100", "an integer from 5 to 86400", "true or false", "one of: ALL, ANY". */
function expectation(schema: TSchema): string {
  const s = facts(schema);
  if (s.enum) return `one of: ${s.enum.join(', ')}`;
  if (s.type === 'boolean') return 'true or false';
  if (s.type === 'number' || s.type === 'integer') {
    const noun = s.type === 'integer' ? 'an integer' : 'a number';
    if (s.minimum !== undefined && s.maximum !== undefined) return `${noun} from ${s.minimum} to ${s.maximum}`;
    if (s.minimum !== undefined) return `${noun} >= ${s.minimum}`;
    if (s.maximum !== undefined) return `${noun} <= ${s.maximum}`;
    return noun;
  }
  if (s.type === 'string' && s.pattern !== undefined) {
    return "a local time window 'HH:MM-HH:MM' (24-hour, two digits each: hours 00-23, minutes 00-59)";
  }
  if (s.type === 'string') return 'a string';
  if (s.type === 'array') return 'an array';
  return 'valid';
}

function unknownFieldMessage(key: string, allowed: readonly string[], readOnly: readonly string[]): string {
  const hint = readOnly.includes(key) ? ' (computed by GET, not accepted in PUT: leave it out)' : '';
  return `unknown field '${key}'${hint}; allowed: ${allowed.join(', ')}`;
}

/** Checks one rule: the discriminator first, then every field against that variant's schema. */
function validateRule(raw: unknown, index: number): ValidationResult<SchedulerRule> {
  const at = `rules[${index}]`;
  if (!isPlainObject(raw)) {
    return { ok: false, errors: [{ path: at, message: `${at}: must be an object, got ${describeValue(raw)}` }] };
  }
  const type = raw.rule;
  if (typeof type !== 'string' || !(RULE_TYPES as string[]).includes(type)) {
    const errors: ValidationError[] = [];
    const message =
      type === undefined
        ? `${at}: missing field 'rule' (the rule type); one of: ${RULE_TYPES.join(', ')}`
        : `${at}: unknown rule type ${describeValue(type)}; allowed: ${RULE_TYPES.join(', ')}`;
    errors.push({ path: `${at}.rule`, message });
    // Name stray keys too: a rule sent with the wrong key (e.g. 'type' for 'rule') must be called out.
    const common = ['rule', 'operator', 'value', 'enabled'];
    for (const key of Object.keys(raw)) {
      if (!common.includes(key)) {
        errors.push({ path: `${at}.${key}`, message: `${at}: ${unknownFieldMessage(key, common, READ_ONLY_RULE_FIELDS)}` });
      }
    }
    return { ok: false, errors };
  }

  const ruleType = type as RuleType;
  const label = `${at} (${ruleType})`;
  const variant = facts(RULE_VARIANTS[ruleType]);
  const properties = variant.properties ?? {};
  const required = variant.required ?? [];
  const errors: ValidationError[] = [];

  for (const key of Object.keys(raw)) {
    if (!(key in properties)) {
      const message = `${label}: ${unknownFieldMessage(key, Object.keys(properties), READ_ONLY_RULE_FIELDS)}`;
      errors.push({ path: `${at}.${key}`, message });
    }
  }
  for (const [key, schema] of Object.entries(properties)) {
    const value = raw[key];
    const path = `${at}.${key}`;
    if (value === undefined) {
      if (required.includes(key)) {
        errors.push({ path, message: `${label}: missing field '${key}' (${expectation(schema)})` });
      }
      continue;
    }
    if (Value.Check(schema, value)) continue;
    if (key === 'operator') {
      const allowed = (facts(schema).enum ?? []).join(', ');
      const shown = typeof value === 'string' ? `'${value}'` : describeValue(value);
      errors.push({ path, message: `${label}: operator ${shown} is not allowed; allowed: ${allowed}` });
    } else {
      errors.push({ path, message: `${label}: ${key} must be ${expectation(schema)}, got ${describeValue(value)}` });
    }
  }

  // A window whose start equals its end is either empty or the whole day; refuse to guess.
  if (errors.length === 0 && ruleType === 'time_window') {
    const [start, end] = String(raw.value).split('-');
    if (start === end) {
      errors.push({
        path: `${at}.value`,
        message:
          `${label}: value '${String(raw.value)}' starts and ends at the same time, which is ambiguous ` +
          `(empty or the whole day); to run at any time, disable or remove the rule`,
      });
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: { ...raw, enabled: raw.enabled ?? true } as SchedulerRule };
}

const CONFIG_FIELDS = Object.keys(facts(PutSchedulerBody).properties ?? {});

/**
 * Validates a PUT /api/queue/scheduler body: every field optional, unknown fields rejected, each rule
 * checked against its own rule type. On success the rules carry `enabled` (default true).
 */
export function validateSchedulerUpdate(body: unknown): ValidationResult<SchedulerUpdate> {
  if (!isPlainObject(body)) {
    return { ok: false, errors: [{ path: '', message: `body must be a JSON object, got ${describeValue(body)}` }] };
  }
  const errors: ValidationError[] = [];
  const value: SchedulerUpdate = {};
  for (const key of Object.keys(body)) {
    if (!CONFIG_FIELDS.includes(key)) {
      errors.push({ path: key, message: unknownFieldMessage(key, CONFIG_FIELDS, READ_ONLY_CONFIG_FIELDS) });
    }
  }
  const properties = facts(PutSchedulerBody).properties ?? {};
  for (const key of CONFIG_FIELDS) {
    const given = body[key];
    if (given === undefined) continue;
    if (key === 'rules') {
      const rules = validateRules(given);
      if (rules.ok) value.rules = rules.value;
      else errors.push(...rules.errors);
      continue;
    }
    const schema = properties[key];
    if (schema === undefined) throw new Error(`scheduler schema has no field ${key}`);
    if (Value.Check(schema, given)) {
      Object.assign(value, { [key]: given });
    } else {
      errors.push({ path: key, message: `${key} must be ${expectation(schema)}, got ${describeValue(given)}` });
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value };
}

function validateRules(given: unknown): ValidationResult<SchedulerRule[]> {
  if (!Array.isArray(given)) {
    return { ok: false, errors: [{ path: 'rules', message: `rules must be an array of rules, got ${describeValue(given)}` }] };
  }
  const max = facts(PutSchedulerBody).properties?.rules;
  const maxItems = max ? (facts(max).maxItems ?? Infinity) : Infinity;
  if (given.length > maxItems) {
    return { ok: false, errors: [{ path: 'rules', message: `rules may hold at most ${maxItems} rules, got ${given.length}` }] };
  }
  const errors: ValidationError[] = [];
  const rules: SchedulerRule[] = [];
  given.forEach((raw, index) => {
    const checked = validateRule(raw, index);
    if (checked.ok) rules.push(checked.value);
    else errors.push(...checked.errors);
  });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: rules };
}

/**
 * Validates a complete configuration (e.g. one loaded from storage or handed to createScheduler): the same
 * checks as an update, and every field must be present.
 */
export function validateSchedulerConfig(config: unknown): ValidationResult<SchedulerConfig> {
  const checked = validateSchedulerUpdate(config);
  if (!checked.ok) return checked;
  const missing = (facts(SchedulerConfigSchema).required ?? []).filter(
    (key) => (checked.value as Record<string, unknown>)[key] === undefined,
  );
  if (missing.length > 0) {
    return { ok: false, errors: missing.map((key) => ({ path: key, message: `missing field '${key}'` })) };
  }
  const value = checked.value as SchedulerConfig;
  // Field-wise checks above must agree with the whole schema; if not, that is a bug here, not bad input.
  if (!Value.Check(SchedulerConfigSchema, value)) throw new Error('scheduler config passed field checks but not the schema');
  return { ok: true, value };
}

/** One line per error, for logs and exceptions. */
export function formatValidationErrors(errors: readonly ValidationError[]): string {
  return errors.map((e) => e.message).join('; ');
}
