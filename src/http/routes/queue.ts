import type Router from '@koa/router';
import { createErrorWith } from '../../errors.js';
import type { AppDeps } from '../deps.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The queue (status, pause/resume, items) and its scheduler (spec: Queue, Scheduler). */
export function queueRoutes(router: Router, { queue, scheduler }: AppDeps): void {
  router.get('/api/queue/status', (ctx) => {
    ctx.body = queue.status();
  });

  router.post('/api/queue/pause', async (ctx) => {
    ctx.body = await queue.pause();
  });

  router.post('/api/queue/resume', async (ctx) => {
    ctx.body = await queue.resume();
  });

  router.get('/api/queue/items', (ctx) => {
    ctx.body = { items: queue.items() };
  });

  router.delete('/api/queue/items/:item_id', async (ctx) => {
    const id = String(ctx.params.item_id ?? '');
    if (!UUID.test(id)) throw createErrorWith('invalid_request', { success: false, item_id: id }, `item_id must be a UUID, got '${id}'`);
    if (!(await queue.remove(id.toLowerCase()))) throw createErrorWith('not_found', { success: false, item_id: id }, `No queue item with id ${id}`);
    ctx.body = { success: true, message: `Queue item ${id} removed`, item_id: id };
  });

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
