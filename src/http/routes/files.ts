import type Router from '@koa/router';
import { DEFAULT_CONTENT_PAGE, fileContent } from '../../search/content.js';
import { createErrorWith } from '../errors.js';
import type { AppDeps } from '../deps.js';
import { idParam, validQuery } from '../validate.js';
import { FileContentQuery, type FileContentBody, type FileRecordBody } from './files.schemas.js';

/** GET /api/files/stats, GET /api/files/{file_id} and its /content (schemas and descriptions in files.schemas.ts). */
export function filesRoutes(router: Router, { store, snippets }: AppDeps): void {
  router.get('/api/files/stats', async (ctx) => {
    ctx.body = await store.files.stats();
  });

  router.get('/api/files/:file_id', async (ctx) => {
    const id = idParam(ctx, 'file_id');
    const record = await store.files.get(id);
    if (!record) throw createErrorWith('not_found', { file_id: id }, `No file with id ${id}`);
    ctx.body = record satisfies FileRecordBody;
  });

  router.get('/api/files/:file_id/content', async (ctx) => {
    const id = idParam(ctx, 'file_id');
    const query = validQuery(ctx, FileContentQuery);
    const outcome = await fileContent(store, snippets, { fileId: id, offset: query.offset ?? 0, length: query.length ?? DEFAULT_CONTENT_PAGE, query: query.q ?? null });
    if (!outcome.ok) throw createErrorWith('not_found', { file_id: id }, outcome.reason);
    ctx.body = outcome.content satisfies FileContentBody;
  });
}
