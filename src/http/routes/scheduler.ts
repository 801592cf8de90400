import type Router from '@koa/router';
import type { AppDeps } from '../deps.js';
import { createErrorWith } from '../errors.js';
import type { SchedulerResponseBody } from './scheduler.schemas.js';

/** The queue's scheduler: its rules with live readings and verdicts (schemas and descriptions in scheduler.schemas.ts). */
export function schedulerRoutes(router: Router, { scheduler }: AppDeps): void {
  router.get('/api/queue/scheduler', async (ctx) => {
    ctx.body = (await scheduler.response()) satisfies SchedulerResponseBody;
  });

  router.put('/api/queue/scheduler', async (ctx) => {
    const result = await scheduler.update((ctx.request as { body?: unknown }).body ?? {});
    if (!result.ok) {
      const errors = result.errors.map((e) => e.message);
      throw createErrorWith('invalid_request', { errors }, `Invalid scheduler configuration (nothing was changed): ${errors.join('; ')}`);
    }
    ctx.body = result.response satisfies SchedulerResponseBody;
  });
}
