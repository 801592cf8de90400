import type Router from '@koa/router';
import { createErrorWith } from '../errors.js';
import type { AppDeps } from '../deps.js';
import { checkPath } from '../paths.js';
import { validBodyOr } from '../validate.js';
import { IndexDirectoryBody, IndexFileBody, type IndexDirectoryResponse, type IndexFileResponse, type IndexRunBody } from './indexing.schemas.js';

/**
 * POST /api/index/directory and /api/index/file: start a run and answer 201 at once; progress on /api/updates and
 * GET /api/index/runs (schemas and descriptions in indexing.schemas.ts).
 */
export function indexingRoutes(router: Router, { indexing, filters, jobs, ownData }: AppDeps): void {
  router.post('/api/index/directory', async (ctx) => {
    const body = validBodyOr(ctx, IndexDirectoryBody, { success: false, files_indexed: 0 });
    const dir = await checkPath(body.directory_path, 'directory', 'directory_path', ownData, { files_indexed: 0 });
    const job = jobs.jobFor(dir);
    const run = indexing.startDirectory(dir, { kind: 'directory', force: body.force ?? true, root: job?.path ?? dir });
    const response: IndexDirectoryResponse = {
      success: true,
      message: `Indexing of ${dir} started; follow run ${run.id} on /api/updates`,
      files_indexed: 0,
      run_id: run.id,
    };
    ctx.status = 201;
    ctx.body = response;
  });

  router.post('/api/index/file', async (ctx) => {
    const body = validBodyOr(ctx, IndexFileBody, { success: false, file_id: null });
    const file = await checkPath(body.file_path, 'file', 'file_path', ownData, { file_id: null });
    const decision = filters.decide(file, jobs.roots());
    if (!decision.indexed) {
      throw createErrorWith('excluded_by_filter', { success: false, file_id: null }, `'${file}' is not indexed: ${decision.reason}`);
    }
    const run = indexing.startFile(file, { force: body.force ?? true });
    const response: IndexFileResponse = {
      success: true,
      message: `Indexing of ${file} started; follow run ${run.id} on /api/updates`,
      file_id: null,
      run_id: run.id,
    };
    ctx.status = 201;
    ctx.body = response;
  });

  router.get('/api/index/runs', (ctx) => {
    const runs: IndexRunBody[] = indexing.activeRuns.map((run) => ({
      ...run.progress(),
      kind: run.kind,
      path: run.path,
      force: run.force,
      started_at: new Date(run.startedAt).toISOString(),
    }));
    ctx.body = { runs };
  });
}
