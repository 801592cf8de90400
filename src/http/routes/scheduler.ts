import type Router from '@koa/router';
import type { AppDeps } from '../deps.js';
import { createErrorWith } from '../errors.js';

/** The queue's scheduler: its rules with live readings and verdicts (the README's Scheduler section). */
export function schedulerRoutes(router: Router, { scheduler }: AppDeps): void {
  router.get('/api/queue/scheduler', async (ctx) => {
    ctx.body = await scheduler.response();
  });

  router.put('/api/queue/scheduler', async (ctx) => {
    const result = await scheduler.update((ctx.request as { body?: unknown }).body ?? {});
    if (!result.ok) {
      const errors = result.errors.map((e) => e.message);
      throw createErrorWith('invalid_request', { errors }, `Invalid scheduler configuration (nothing was changed): ${errors.join('; ')}`);
    }
    ctx.body = result.response;
  });
}
