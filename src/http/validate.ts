import type { Context } from 'koa';
import type { Static, TSchema } from 'typebox';
import { createError, createErrorWith, type ErrorFields } from '../errors.js';
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

/** A path parameter that must be a positive integer id. */
export function idParam(ctx: Context, name: string): number {
  const raw = (ctx.params as Record<string, string | undefined>)[name] ?? '';
  if (!/^[1-9]\d{0,15}$/.test(raw)) {
    throw createError('invalid_request', `${name} must be a positive integer, got '${raw}'`);
  }
  return Number(raw);
}
