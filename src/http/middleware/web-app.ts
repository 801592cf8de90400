import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Middleware } from 'koa';
import { send } from '@koa/send';
import { createError } from '../errors.js';

/** The app's own files: its page, its hashed assets, its icon. Anything else falls through to the API's 404. */
const APP_FILE = /^(index\.html|favicon\.svg|assets\/[\w.-]+)$/;

/** Only our own scripts and styles, only our own API; no frames, no plugins. */
const APP_CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** The paths of the web app and of the API description: served without the bearer token (they hold no data). */
export function isPublicPath(method: string, urlPath: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (urlPath === '/api/openapi.json' || urlPath === '/api/docs' || urlPath.startsWith('/api/docs/')) return true;
  return urlPath === '/' || APP_FILE.test(urlPath.slice(1));
}

/**
 * Serves the web app (built into `dir` by `npm run build`) at `/`. It runs after the security middleware, so the
 * same Host and Origin checks apply; the app then asks for the token itself when the API wants one. Hashed
 * assets are cached for a year, the page never (a new build is picked up at once).
 */
export function webAppMiddleware(dir: string): Middleware {
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path.startsWith('/api/')) return next();
    const file = ctx.path === '/' ? 'index.html' : ctx.path.slice(1);
    if (!APP_FILE.test(file)) return next();
    if (!existsSync(path.join(dir, 'index.html'))) {
      throw createError('not_found', `The web app is not built (no ${path.join(dir, 'index.html')}): run npm run build`);
    }
    const asset = file.startsWith('assets/');
    ctx.set('Content-Security-Policy', APP_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    await send(ctx, file, asset ? { root: dir, maxage: 365 * 86_400_000, immutable: true } : { root: dir, setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache') });
  };
}
