import type Router from '@koa/router';
import type { AppDeps } from '../deps.js';
import { validBody } from '../validate.js';
import { SearchBody } from './search.schemas.js';

/** POST /api/search/: hybrid search, JSON body (query, directory, filters, limit, mode). */
export function searchRoutes(router: Router, { search }: AppDeps): void {
  router.post('/api/search', async (ctx) => {
    ctx.body = await search.search(validBody(ctx, SearchBody));
  });
}
