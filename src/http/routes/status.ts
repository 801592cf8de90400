import type Router from '@koa/router';
import type { AppDeps } from '../deps.js';

export function statusRoutes(router: Router, { status }: AppDeps): void {
  router.get('/api/status', async (ctx) => {
    ctx.body = await status.check();
  });
}
