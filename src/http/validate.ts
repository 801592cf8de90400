import type { Context } from 'koa';
import type { Static, TSchema } from 'typebox';
import { createError } from '../errors.js';
import { findProblem } from '../validation.js';

/** The parsed JSON body checked against a route's schema; a 400 naming the field otherwise. */
export function validBody<S extends TSchema>(ctx: Context, schema: S): Static<S> {
  const body: unknown = (ctx.request as { body?: unknown }).body ?? {};
  const problem = findProblem(schema, body);
  if (problem) throw createError('invalid_request', problem);
  return body as Static<S>;
}

/** A path parameter that must be a positive integer id. */
export function idParam(ctx: Context, name: string): number {
  const raw = (ctx.params as Record<string, string | undefined>)[name] ?? '';
  if (!/^[1-9]\d{0,15}$/.test(raw)) {
    throw createError('invalid_request', `${name} must be a positive integer, got '${raw}'`);
  }
  return Number(raw);
}
