import type Router from '@koa/router';
import { createErrorWith } from '../errors.js';
import type { AppDeps } from '../deps.js';
import { checkPath } from '../paths.js';
import { idParam, noBody, validBodyOr } from '../validate.js';
import { WatchBody, type DeleteWatchJobResponse, type WatchJobsResponse, type WatchResponse } from './watch.schemas.js';

/** POST /api/watch/, GET /api/watch/jobs, DELETE /api/watch/jobs/{job_id} (schemas and descriptions in watch.schemas.ts). */
export function watchRoutes(router: Router, { watcher, store, ownData }: AppDeps): void {
  router.post('/api/watch', async (ctx) => {
    const fields = { success: false, files_indexed: 0 };
    const body = validBodyOr(ctx, WatchBody, fields);
    const dir = await checkPath(body.directory_path, 'directory', 'directory_path', ownData, { files_indexed: 0 });
    const result = await watcher.add({ path: dir, recursive: body.recursive ?? true, filePattern: body.file_pattern ?? null });
    if (!result.ok) throw createErrorWith(result.code, fields, result.message);
    const { job, absorbed } = result;
    const absorbedNote =
      absorbed.length > 0
        ? ` It absorbs ${absorbed.map((a) => `job ${a.id} (${a.path})`).join(', ')}: their files stay indexed and now belong to job ${job.id}.`
        : '';
    const response: WatchResponse = {
      success: true,
      message: `Watching ${dir} (job ${job.id}); the initial scan runs in the background, follow it on /api/updates.${absorbedNote}`,
      files_indexed: 0,
      job_id: job.id,
      absorbed_job_ids: absorbed.map((a) => a.id),
    };
    ctx.status = 201;
    ctx.body = response;
  });

  router.get('/api/watch/jobs', async (ctx) => {
    await watcher.scansRecorded();
    const response: WatchJobsResponse = { jobs: await store.jobs.list() };
    ctx.body = response;
  });

  router.delete('/api/watch/jobs/:job_id', async (ctx) => {
    const id = idParam(ctx, 'job_id', { success: false, job_id: null });
    noBody(ctx, { success: false, job_id: id });
    const removed = await watcher.remove(id);
    if (!removed) throw createErrorWith('not_found', { success: false, job_id: id }, `No watch job with id ${id}`);
    const response: DeleteWatchJobResponse = {
      success: true,
      message: `Stopped watching ${removed.job.path} (job ${id}); ${removed.filesRemoved} indexed file(s) removed from the index`,
      job_id: id,
      files_removed: removed.filesRemoved,
    };
    ctx.body = response;
  });
}
