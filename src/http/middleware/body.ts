import type { Middleware } from 'koa';
import { createError } from '../errors.js';

export const MAX_BODY = '1mb';
/** Nesting of arrays and objects a body may have: ours need 4; recursive validators must never meet 20,000. */
export const MAX_BODY_DEPTH = 32;

/** How deeply `value` nests arrays and objects (iterative: a hostile body cannot overflow the stack here). */
export function nestingDepth(value: unknown, limit = Infinity): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Object.values(node)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return deepest;
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return headers['transfer-encoding'] !== undefined;
}

/** The methods whose bodies are parsed; a body on any other (GET, HEAD) is never read, as before. */
const PARSED_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE'] as const;
const isParsedMethod = (method: string): boolean => (PARSED_METHODS as readonly string[]).includes(method);

/**
 * JSON only: a body of any other type is a 415; malformed JSON a 400; over 1 MB a 413 (see errors.ts); nested
 * deeper than MAX_BODY_DEPTH a 400 naming the limit, before any route or validator sees it.
 *
 * koa-body and the option validator it loads (zod, ~100 modules) cost ~0.3 CPU-s, a tenth of a restart's CPU on a
 * slow 2-core machine: they load with the first request that may carry a body, so a start nobody asks anything of
 * (the service starting at login) does not pay for them.
 */
export function jsonBodyMiddleware(): Middleware {
  let parser: Promise<Middleware> | undefined;
  const loadParser = (): Promise<Middleware> =>
    (parser ??= import('koa-body').then(({ koaBody, HttpMethodEnum }) =>
      koaBody({
        json: true,
        urlencoded: false,
        text: false,
        multipart: false,
        jsonLimit: MAX_BODY,
        jsonStrict: true,
        parsedMethods: PARSED_METHODS.map((method) => HttpMethodEnum[method]),
      }),
    ));
  return async (ctx, next) => {
    if (hasBody(ctx.req.headers) && !ctx.is('application/json')) {
      throw createError('unsupported_media_type', ctx.get('Content-Type') || '(none)');
    }
    const checked = async (): Promise<void> => {
      const depth = nestingDepth((ctx.request as { body?: unknown }).body, MAX_BODY_DEPTH);
      if (depth > MAX_BODY_DEPTH) {
        throw createError('invalid_request', `Request body is nested more than ${MAX_BODY_DEPTH} levels deep (arrays and objects inside each other); at most ${MAX_BODY_DEPTH} are allowed`);
      }
      await next();
    };
    if (!isParsedMethod(ctx.method)) return checked();
    return (await loadParser())(ctx, checked);
  };
}
