import { timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { isLoopbackHost } from '../../config.js';
import { createError } from '../errors.js';

export interface SecurityOptions {
  apiToken: string | null;
  allowedHosts: string[];
  corsOrigins: string[];
  /** Requests that need no token (the web app's files, the API description); Host and Origin are checked all the same. */
  isPublic?: (method: string, path: string) => boolean;
}

/** 'localhost:60534' → 'localhost'; '[::1]:80' → '::1'. */
function hostName(hostHeader: string): string {
  const trimmed = hostHeader.trim().toLowerCase();
  if (trimmed.startsWith('[')) return trimmed.slice(1, trimmed.indexOf(']'));
  return trimmed.replace(/:\d+$/, '');
}

function tokenMatches(expected: string, header: string | undefined): boolean {
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!match) return false;
  const a = Buffer.from(match[1]!.trim());
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * DNS-rebinding defence (the Host header must name this machine), optional bearer token, and CORS only for
 * configured origins. A browser page from another origin can neither read our answers nor act on our API.
 */
export function securityMiddleware(options: SecurityOptions): Middleware {
  const allowedHosts = new Set(options.allowedHosts);
  const corsOrigins = new Set(options.corsOrigins);
  return async (ctx, next) => {
    const host = hostName(ctx.get('Host'));
    if (!isLoopbackHost(host) && !allowedHosts.has(host)) {
      throw createError('forbidden_host', ctx.get('Host') || '(none)');
    }
    const origin = ctx.get('Origin');
    if (origin) {
      let sameHost = false;
      try {
        sameHost = new URL(origin).host.toLowerCase() === ctx.get('Host').toLowerCase();
      } catch {
        sameHost = false;
      }
      if (corsOrigins.has(origin)) {
        ctx.set('Access-Control-Allow-Origin', origin);
        ctx.set('Vary', 'Origin');
        if (ctx.method === 'OPTIONS') {
          ctx.set('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE');
          ctx.set('Access-Control-Allow-Headers', 'Content-Type, Authorization, Last-Event-ID');
          ctx.set('Access-Control-Max-Age', '600');
          ctx.status = 204;
          return;
        }
      } else if (!sameHost) {
        throw createError('forbidden_origin', origin);
      }
    }
    if (options.apiToken && !options.isPublic?.(ctx.method, ctx.path) && !tokenMatches(options.apiToken, ctx.get('Authorization'))) {
      ctx.set('WWW-Authenticate', 'Bearer');
      throw createError('unauthorized');
    }
    await next();
  };
}
