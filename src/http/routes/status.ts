import type Router from '@koa/router';
import type { AppDeps } from '../deps.js';
import type { StatusBody } from './status.schemas.js';

/** GET /api/status/ (schema and description in status.schemas.ts). */
export function statusRoutes(router: Router, { status }: AppDeps): void {
  router.get('/api/status', async (ctx) => {
    ctx.body = (await status.check()) satisfies StatusBody;
  });
}
