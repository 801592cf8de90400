import type Router from '@koa/router';
import type { AppDeps } from '../deps.js';
import { createErrorWith } from '../errors.js';
import { noBody, uuidParam } from '../validate.js';
import type { DeleteQueueItemResponse, QueueItemsResponse, QueueStatusBody } from './queue.schemas.js';

/** The queue: status, pause/resume, items (schemas and descriptions in queue.schemas.ts). */
export function queueRoutes(router: Router, { queue }: AppDeps): void {
  router.get('/api/queue/status', (ctx) => {
    ctx.body = queue.status() satisfies QueueStatusBody;
  });

  router.post('/api/queue/pause', async (ctx) => {
    noBody(ctx);
    ctx.body = (await queue.pause()) satisfies QueueStatusBody;
  });

  router.post('/api/queue/resume', async (ctx) => {
    noBody(ctx);
    ctx.body = (await queue.resume()) satisfies QueueStatusBody;
  });

  router.get('/api/queue/items', (ctx) => {
    ctx.body = { items: queue.items() } satisfies QueueItemsResponse;
  });

  router.delete('/api/queue/items/:item_id', async (ctx) => {
    const id = uuidParam(ctx, 'item_id', { success: false });
    noBody(ctx, { success: false, item_id: id });
    if (!(await queue.remove(id))) throw createErrorWith('not_found', { success: false, item_id: id }, `No queue item with id ${id}`);
    ctx.body = { success: true, message: `Queue item ${id} removed`, item_id: id } satisfies DeleteQueueItemResponse;
  });
}
