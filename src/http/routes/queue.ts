import type Router from '@koa/router';
import type { AppDeps } from '../deps.js';
import { createErrorWith } from '../errors.js';
import { noBody, uuidParam } from '../validate.js';

/** The queue: status, pause/resume, items (the README's Queue section). */
export function queueRoutes(router: Router, { queue }: AppDeps): void {
  router.get('/api/queue/status', (ctx) => {
    ctx.body = queue.status();
  });

  router.post('/api/queue/pause', async (ctx) => {
    noBody(ctx);
    ctx.body = await queue.pause();
  });

  router.post('/api/queue/resume', async (ctx) => {
    noBody(ctx);
    ctx.body = await queue.resume();
  });

  router.get('/api/queue/items', (ctx) => {
    ctx.body = { items: queue.items() };
  });

  router.delete('/api/queue/items/:item_id', async (ctx) => {
    const id = uuidParam(ctx, 'item_id', { success: false });
    noBody(ctx, { success: false, item_id: id });
    if (!(await queue.remove(id))) throw createErrorWith('not_found', { success: false, item_id: id }, `No queue item with id ${id}`);
    ctx.body = { success: true, message: `Queue item ${id} removed`, item_id: id };
  });
}
