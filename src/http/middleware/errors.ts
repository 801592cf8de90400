import type { Middleware } from 'koa';
import { AppError, createError, errorTable, type ErrorCode } from '../errors.js';
import type { Logger } from '../../logger.js';

interface HttpishError {
  status?: number;
  statusCode?: number;
  type?: string;
  expose?: boolean;
  message?: string;
}

/** Maps errors raised by libraries (body parser, router) onto our table; unknown errors are bugs (500). */
function toAppError(err: unknown, method: string, path: string, allowHeader: string): AppError {
  if (err instanceof AppError) return err;
  const e = (err ?? {}) as HttpishError;
  const status = e.status ?? e.statusCode;
  if (status === 413 || e.type === 'entity.too.large') return createError('payload_too_large', '1 MB');
  if (e.type === 'entity.parse.failed' || err instanceof SyntaxError) {
    return createError('invalid_json', e.message ?? 'malformed');
  }
  if (status === 415 || e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
    return createError('unsupported_media_type', e.message ?? 'unsupported encoding');
  }
  if (status === 405 || status === 501) {
    // The router sets the Allow header before throwing.
    const error = createError('method_not_allowed', method, allowHeader || 'none');
    if (allowHeader) error.fields.allowed_methods = allowHeader.split(/\s*,\s*/);
    return error;
  }
  if (status === 404) return createError('route_not_found', `${method} ${path}`);
  if (status !== undefined && status >= 400 && status < 500 && e.expose) {
    const code = (Object.keys(errorTable) as ErrorCode[]).find((c) => errorTable[c].status === status);
    return new AppError(code ?? 'invalid_request', e.message ?? 'Bad request');
  }
  return createError('internal');
}

/**
 * The single error path (Koa's ctx.onerror idea): every failure becomes JSON {success: false, code, message, ...}.
 * Messages are shown for 4xx only; a 500 is logged with its stack and answered without details.
 */
export function errorMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.respond !== false && (ctx.body === undefined || ctx.body === null)) {
        // Nothing answered: an unknown route (404), or the router's 405/501 for a known path.
        if (ctx.status === 404) throw createError('route_not_found', `${ctx.method} ${ctx.path}`);
        if (ctx.status === 405 || ctx.status === 501) throw Object.assign(new Error('method'), { status: 405 });
      }
    } catch (err) {
      const error = toAppError(err, ctx.method, ctx.path, ctx.response.get('Allow'));
      if (!error.expose) logger.error({ err, method: ctx.method, path: ctx.path }, 'request failed');
      if (ctx.headerSent || !ctx.writable) return;
      ctx.status = error.status;
      ctx.type = 'application/json';
      ctx.body = {
        ...error.fields,
        success: false,
        code: error.code,
        message: error.expose ? error.message : 'Internal server error',
      };
    }
  };
}
