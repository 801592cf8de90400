/** The /api/watch endpoints: watched directories (SPEC 2.4) and their jobs. */
import Type, { type Static } from '#typebox';
import { IdParam, Nullable, SuccessFields, type Operation } from './common.schemas.js';

export const WatchBody = Type.Object(
  {
    directory_path: Type.String({ minLength: 1, maxLength: 4096, description: 'Absolute path of the directory to watch' }),
    recursive: Type.Optional(Type.Boolean({ description: 'Watch sub-directories too (default true)' })),
    file_pattern: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 1000 }), Type.Null()], { description: "Only files matching this glob, e.g. '*.md' (default: all)" }),
    ),
  },
  { additionalProperties: false },
);
export type WatchBody = Static<typeof WatchBody>;

export const WatchResponse = Type.Object(
  {
    ...SuccessFields,
    files_indexed: Type.Literal(0, { description: 'Always 0: the initial scan runs in the background' }),
    job_id: Type.Integer({ minimum: 1 }),
    absorbed_job_ids: Type.Array(Type.Integer(), { description: 'Jobs of sub-directories this one absorbed' }),
  },
  { additionalProperties: false },
);
export type WatchResponse = Static<typeof WatchResponse>;

/** ISO 8601 without zone (UTC wall time), as the spec shows watch job timestamps. */
const WallTime = (description: string) => Nullable(Type.String({ description: `${description} (ISO 8601 without zone, UTC)` }));

export const WatchJobSchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    path: Type.String(),
    is_active: Type.Boolean(),
    recursive: Type.Boolean(),
    file_pattern: Nullable(Type.String()),
    last_scan: WallTime('When the last scan completed'),
    created_at: WallTime('Creation'),
    updated_at: WallTime('Last change'),
  },
  { additionalProperties: false, title: 'WatchJob' },
);

export const WatchJobsResponse = Type.Object({ jobs: Type.Array(WatchJobSchema) }, { additionalProperties: false });
export type WatchJobsResponse = Static<typeof WatchJobsResponse>;

export const DeleteWatchJobResponse = Type.Object(
  { ...SuccessFields, job_id: Type.Integer({ minimum: 1 }), files_removed: Type.Integer({ minimum: 0 }) },
  { additionalProperties: false },
);
export type DeleteWatchJobResponse = Static<typeof DeleteWatchJobResponse>;

export const watchOperations: Operation[] = [
  {
    method: 'post',
    path: '/api/watch',
    tag: 'watch',
    summary: 'Watch a directory',
    description:
      'Adds the job, starts its watcher and, once ready, the initial scan (an index run of kind `watch`). Watching a parent of ' +
      'watched directories absorbs their jobs. 400 `already_watched`, `invalid_path`, `invalid_pattern` (with `files_indexed: 0`).',
    body: WatchBody,
    answers: { 201: { description: 'The job', schema: WatchResponse } },
  },
  {
    method: 'get',
    path: '/api/watch/jobs',
    tag: 'watch',
    summary: 'Watch jobs',
    answers: { 200: { description: 'Active and inactive', schema: WatchJobsResponse } },
  },
  {
    method: 'delete',
    path: '/api/watch/jobs/:job_id',
    tag: 'watch',
    summary: 'Stop watching a directory',
    description: "Stops the watcher, drops the directory's queue items and removes its files from the index. 404 `not_found` with `job_id`.",
    params: IdParam('job_id', 'The watch job id'),
    answers: { 200: { description: 'Removed', schema: DeleteWatchJobResponse } },
  },
];
