import type { TSchema } from '#typebox';
import Value from '#typebox/value';

/**
 * Turns TypeBox's JSON-Schema errors into one sentence a person can act on: which field, what is allowed, and
 * what was sent. Used by every route and by the settings service, so all 400s read the same way.
 */

interface SchemaLike {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: SchemaLike[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  items?: SchemaLike;
  maxItems?: number;
  properties?: Record<string, SchemaLike>;
  description?: string;
}

/** What a schema allows, in words: "a number from 0 to 86400", "one of 'ALL', 'ANY'". */
export function describeAllowed(schema: TSchema): string {
  return describe(schema as SchemaLike);
}

function describe(s: SchemaLike): string {
  if (s.enum) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  if (s.anyOf) {
    const literals = s.anyOf.filter((o) => o.const !== undefined).map((o) => JSON.stringify(o.const));
    if (literals.length === s.anyOf.length) return `one of ${literals.join(', ')}`;
    return s.anyOf.map(describe).join(' or ');
  }
  if (s.const !== undefined) return JSON.stringify(s.const);
  switch (s.type) {
    case 'integer':
    case 'number': {
      const kind = s.type === 'integer' ? 'an integer' : 'a number';
      if (s.minimum !== undefined && s.maximum !== undefined) return `${kind} from ${s.minimum} to ${s.maximum}`;
      if (s.minimum !== undefined) return `${kind} >= ${s.minimum}`;
      if (s.exclusiveMinimum !== undefined) return `${kind} > ${s.exclusiveMinimum}`;
      if (s.maximum !== undefined) return `${kind} <= ${s.maximum}`;
      return kind;
    }
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    case 'string': {
      if (s.pattern === '^https?://') return 'an http(s) URL';
      const parts = [];
      if (s.minLength !== undefined) parts.push(`at least ${s.minLength}`);
      if (s.maxLength !== undefined) parts.push(`at most ${s.maxLength}`);
      const len = parts.length ? ` of ${parts.join(' and ')} characters` : '';
      return s.pattern ? `a string matching ${s.pattern}` : `a string${len}`;
    }
    case 'array':
      return `an array${s.maxItems !== undefined ? ` of at most ${s.maxItems} items` : ''}`;
    case 'object':
      return 'an object';
    default:
      return 'a valid value';
  }
}

/** JSON Pointer '/rules/0/operator' → 'rules[0].operator' (prefixed by the field name given). */
function fieldPath(base: string, pointer: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = base;
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out ? `.${part}` : part;
  return out || 'body';
}

function show(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) return 'nothing';
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

interface TypeBoxError {
  keyword: string;
  instancePath: string;
  schemaPath: string;
  params: Record<string, unknown>;
  message: string;
}

function resolvePointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const part of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

function schemaAt(root: SchemaLike, schemaPath: string): SchemaLike | undefined {
  let node: unknown = root;
  for (const part of schemaPath.replace(/^#/, '').split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node as SchemaLike | undefined;
}

/**
 * Checks value against schema; returns null when valid, else one message naming the field (`name` is the
 * field's own name, e.g. the dotted settings key, or '' for a request body).
 */
export function findProblem(schema: TSchema, value: unknown, name = ''): string | null {
  if (Value.Check(schema, value)) return null;
  const errors = [...Value.Errors(schema, value)] as unknown as TypeBoxError[];
  // Unknown fields first: they are the most common mistake and the clearest to report.
  const extra = errors.find((e) => e.keyword === 'additionalProperties');
  if (extra) {
    const names = (extra.params.additionalProperties as string[] | undefined) ?? [];
    const where = extra.instancePath ? ` in ${fieldPath(name, extra.instancePath)}` : '';
    const allowed = Object.keys(schemaAt(schema as SchemaLike, extra.schemaPath)?.properties ?? {});
    return `unknown field${names.length > 1 ? 's' : ''} ${names.map((n) => `'${n}'`).join(', ')}${where}; allowed: ${allowed.join(', ') || 'none'}`;
  }
  const missing = errors.find((e) => e.keyword === 'required');
  if (missing) {
    const props = (missing.params.requiredProperties as string[] | undefined) ?? [];
    const field = fieldPath(name, `${missing.instancePath}/${props[0] ?? ''}`);
    return `${field} is required`;
  }
  // The deepest error is the most specific; for unions, describe the whole union at that place.
  const deepest = [...errors].sort((a, b) => b.instancePath.length - a.instancePath.length)[0]!;
  const atPlace = errors.filter((e) => e.instancePath === deepest.instancePath);
  const union = atPlace.find((e) => e.keyword === 'anyOf');
  const target = union ?? deepest;
  const sub = schemaAt(schema as SchemaLike, target.schemaPath);
  const allowed = sub ? describe(sub) : target.message;
  const actual = resolvePointer(value, target.instancePath);
  return `${fieldPath(name, target.instancePath)} must be ${allowed}, got ${show(actual)}`;
}
