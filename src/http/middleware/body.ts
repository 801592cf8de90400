import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { createError } from '../errors.js';

export const MAX_BODY = '1mb';

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return headers['transfer-encoding'] !== undefined;
}

/** JSON only: a body of any other type is a 415; malformed JSON a 400; over 1 MB a 413 (see errors.ts). */
export function jsonBodyMiddleware(): Middleware {
  const parse = koaBody({
    json: true,
    urlencoded: false,
    text: false,
    multipart: false,
    jsonLimit: MAX_BODY,
    jsonStrict: true,
    parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PUT, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE],
  });
  return async (ctx, next) => {
    if (hasBody(ctx.req.headers) && !ctx.is('application/json')) {
      throw createError('unsupported_media_type', ctx.get('Content-Type') || '(none)');
    }
    return parse(ctx, next);
  };
}
