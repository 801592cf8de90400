import type { Context } from 'koa';
import Type, { type Static, type TObject, type TSchema } from '#typebox';
import Value from '#typebox/value';
import { createErrorWith, type ErrorFields } from './errors.js';
import { findProblem } from '../validation.js';

/** The parsed JSON body checked against a route's schema; a 400 naming the field otherwise. */
export function validBody<S extends TSchema>(ctx: Context, schema: S): Static<S> {
  return validBodyOr(ctx, schema, {});
}

/** Same as validBody, for endpoints whose error bodies carry their own fields (e.g. files_indexed). */
export function validBodyOr<S extends TSchema>(ctx: Context, schema: S, fields: ErrorFields): Static<S> {
  const body: unknown = (ctx.request as { body?: unknown }).body ?? {};
  const problem = findProblem(schema, body);
  if (problem) throw createErrorWith('invalid_request', fields, problem);
  return body as Static<S>;
}

const NoBodySchema = Type.Object({}, { additionalProperties: false });

/**
 * For endpoints that take no body: nothing, or `{}`. A field sent anyway is a 400 naming it, never silently
 * ignored (a client sending options an endpoint does not have would otherwise believe they applied).
 */
export function noBody(ctx: Context, fields: ErrorFields = {}): void {
  const body: unknown = (ctx.request as { body?: unknown }).body ?? {};
  if (findProblem(NoBodySchema, body) === null) return;
  const names = body !== null && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [];
  const sent = names.length > 0 ? `field${names.length > 1 ? 's' : ''} ${names.map((n) => `'${n.slice(0, 60)}'`).join(', ')}` : `a ${Array.isArray(body) ? 'list' : typeof body}`;
  throw createErrorWith('invalid_request', fields, `${ctx.method} ${ctx.path} takes no body fields, got ${sent}`);
}

/**
 * The query string checked against a route's schema, numbers converted from their text; a 400 naming the
 * parameter otherwise. A repeated parameter (?q=a&q=b) is refused rather than guessed at.
 */
export function validQuery<S extends TObject>(ctx: Context, schema: S): Static<S> {
  const raw: Record<string, unknown> = { ...ctx.query };
  const repeated = Object.keys(raw).find((k) => Array.isArray(raw[k]));
  if (repeated) throw createErrorWith('invalid_request', {}, `query parameter '${repeated}' is given more than once`);
  const converted = Value.Convert(schema, raw);
  const problem = findProblem(schema, converted);
  if (problem) throw createErrorWith('invalid_request', {}, `query: ${problem}`);
  return converted as Static<S>;
}

const ID = /^[1-9]\d{0,15}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function param(ctx: Context, name: string): string {
  return (ctx.params as Record<string, string | undefined>)[name] ?? '';
}

/** A path parameter that must be a positive integer id; `fields` go into the 400's body (the endpoint's own). */
export function idParam(ctx: Context, name: string, fields: ErrorFields = {}): number {
  const raw = param(ctx, name);
  if (!ID.test(raw)) throw createErrorWith('invalid_request', fields, `${name} must be a positive integer, got '${raw}'`);
  return Number(raw);
}

/** A path parameter that must be a UUID, answered lower-case. */
export function uuidParam(ctx: Context, name: string, fields: ErrorFields = {}): string {
  const raw = param(ctx, name);
  if (!UUID.test(raw)) throw createErrorWith('invalid_request', { ...fields, [name]: raw }, `${name} must be a UUID, got '${raw}'`);
  return raw.toLowerCase();
}
