import type Router from '@koa/router';
import { createErrorWith } from '../errors.js';
import type { AppDeps } from '../deps.js';
import { idParam } from '../validate.js';

/** GET /api/files/stats and GET /api/files/{file_id}. */
export function filesRoutes(router: Router, { store }: AppDeps): void {
  router.get('/api/files/stats', async (ctx) => {
    ctx.body = await store.files.stats();
  });

  router.get('/api/files/:file_id', async (ctx) => {
    const id = idParam(ctx, 'file_id');
    const record = await store.files.get(id);
    if (!record) throw createErrorWith('not_found', { file_id: id }, `No file with id ${id}`);
    ctx.body = record;
  });
}
