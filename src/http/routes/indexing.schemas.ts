/** The /api/index endpoints: start a run (answered at once, 201), and list the runs going on. */
import Type, { type Static } from '#typebox';
import { Instant, Nullable, SuccessFields, type Operation } from './common.schemas.js';

export const IndexDirectoryBody = Type.Object(
  {
    directory_path: Type.String({ minLength: 1, maxLength: 4096, description: 'Absolute path of the directory' }),
    force: Type.Optional(Type.Boolean({ description: 'Re-process every file even if unchanged (default true)' })),
  },
  { additionalProperties: false },
);
export type IndexDirectoryBody = Static<typeof IndexDirectoryBody>;

export const IndexFileBody = Type.Object(
  {
    file_path: Type.String({ minLength: 1, maxLength: 4096, description: 'Absolute path of the file' }),
    force: Type.Optional(Type.Boolean({ description: 'Re-process the file even if unchanged (default true)' })),
  },
  { additionalProperties: false },
);
export type IndexFileBody = Static<typeof IndexFileBody>;

const RunId = Type.String({ description: 'Follow it on /api/updates (index_run_* events) and GET /api/index/runs' });

export const IndexDirectoryResponse = Type.Object(
  { ...SuccessFields, files_indexed: Type.Literal(0, { description: 'Always 0: indexing is asynchronous' }), run_id: RunId },
  { additionalProperties: false },
);
export type IndexDirectoryResponse = Static<typeof IndexDirectoryResponse>;

export const IndexFileResponse = Type.Object(
  { ...SuccessFields, file_id: Type.Null({ description: 'Always null: indexing is asynchronous' }), run_id: RunId },
  { additionalProperties: false },
);
export type IndexFileResponse = Static<typeof IndexFileResponse>;

export const IndexRunKindSchema = Type.Enum(['directory', 'file', 'watch', 'reconcile', 'queue', 'filters', 'reembed'], {
  description: "What started the run: /api/index/*, a watch job's initial scan, the start-up reconcile, the queue, a filter change, a model change",
});

/** Where a run stands: index_run_progress carries the same fields (from run_id on). */
export const IndexRunSchema = Type.Object(
  {
    run_id: Type.String(),
    kind: IndexRunKindSchema,
    path: Type.String({ description: "The folder or file ('' for runs over the whole index)" }),
    force: Type.Boolean(),
    started_at: Instant(),
    processed: Type.Integer({ minimum: 0, description: 'indexed + skipped + failed' }),
    indexed: Type.Integer({ minimum: 0 }),
    name_only: Type.Integer({ minimum: 0, description: "Of indexed, files searchable by name only: no text could be read (the file's note says why)" }),
    skipped: Type.Integer({ minimum: 0, description: 'Unchanged since they were indexed' }),
    failed: Type.Integer({ minimum: 0 }),
    removed: Type.Integer({ minimum: 0 }),
    total: Type.Integer({ minimum: 0 }),
    total_final: Type.Boolean({ description: 'The files are counted: total no longer grows (except for files created meanwhile)' }),
    files_per_second: Type.Number({ minimum: 0, description: 'Over the last 30 s or so' }),
    eta_seconds: Nullable(Type.Integer({ minimum: 0, description: 'Null until the total is final and files are moving' })),
    current_path: Nullable(Type.String({ description: 'The file most recently handed to the pipeline' })),
  },
  { additionalProperties: false, title: 'IndexRun' },
);
export type IndexRunBody = Static<typeof IndexRunSchema>;

export const IndexRunsResponse = Type.Object({ runs: Type.Array(IndexRunSchema) }, { additionalProperties: false });

export const indexingOperations: Operation[] = [
  {
    method: 'post',
    path: '/api/index/directory',
    tag: 'indexing',
    summary: 'Index a directory',
    description:
      'Walks the directory (respecting the filters), indexes every file and removes indexed files that are gone or now excluded. ' +
      'Answers at once; a bad path is a 400 `invalid_path` with `files_indexed: 0`.',
    body: IndexDirectoryBody,
    answers: { 201: { description: 'The run started', schema: IndexDirectoryResponse } },
  },
  {
    method: 'post',
    path: '/api/index/file',
    tag: 'indexing',
    summary: 'Index one file',
    description: 'A file the filters exclude is a 400 `excluded_by_filter` naming the pattern; a bad path a 400 `invalid_path` (with `file_id: null`).',
    body: IndexFileBody,
    answers: { 201: { description: 'The run started', schema: IndexFileResponse } },
  },
  {
    method: 'get',
    path: '/api/index/runs',
    tag: 'indexing',
    summary: 'Indexing runs going on',
    description: 'Each run with its progress, as index_run_progress reports it (the queue\'s work shows in /api/queue/*).',
    answers: { 200: { description: 'Oldest first', schema: IndexRunsResponse } },
  },
];
