/** GET /api/status/: backend health from a real database round trip, and what each component reports of itself. */
import Type, { type Static } from '#typebox';
import { Instant, Nullable, type Operation } from './common.schemas.js';

/** A component's own report: `ok` plus its details (open: components add fields as they grow). */
const Component = (title: string, properties: Parameters<typeof Type.Object>[0], description: string) =>
  Type.Object({ ok: Type.Boolean({ description: 'false makes the overall status degraded' }), ...properties }, { additionalProperties: true, title, description });

const DatabaseHealthSchema = Type.Object(
  {
    ok: Type.Boolean(),
    engine: Type.Union([Type.Literal('pglite'), Type.Literal('postgres')]),
    location: Type.String({ description: 'The PGlite folder, or the server (without credentials)' }),
    reachable: Type.Boolean(),
    latency_ms: Nullable(Type.Number({ minimum: 0, description: 'Of the health query' })),
    server_version: Nullable(Type.String()),
    schema_version: Nullable(Type.Integer()),
    error: Type.Optional(Type.String()),
  },
  { additionalProperties: false, title: 'DatabaseHealth' },
);

export const StatusSchema = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
    ready: Type.Boolean({ description: 'Start-up is over: every watched folder is watched live (false while the watchers start after a restart)' }),
    jobs: Nullable(Type.Integer({ minimum: 0, description: 'Active watch jobs (null when the database cannot be reached)' })),
    version: Type.String(),
    started_at: Instant(),
    uptime_seconds: Type.Integer({ minimum: 0 }),
    database: DatabaseHealthSchema,
    embedder: Type.Optional(
      Component(
        'EmbedderHealth',
        {
          ready: Type.Boolean(),
          kind: Nullable(Type.Union([Type.Literal('transformer'), Type.Literal('static')])),
          model: Nullable(Type.String()),
          identity: Nullable(Type.String({ description: 'What files record as embedding_model' })),
          search: Type.Union([Type.Literal('hybrid'), Type.Literal('keyword')]),
          reembed: Nullable(Type.Object({}, { additionalProperties: true, description: 'The latest background re-embed run' })),
          pull: Nullable(Type.Object({}, { additionalProperties: true, description: 'An automatic model download' })),
        },
        'The embedding model: which, whether it loads, its re-embed and download (README, Embedding models)',
      ),
    ),
    worker_pool: Type.Optional(
      Component(
        'WorkerPoolHealth',
        {
          threads: Type.Integer({ minimum: 0 }),
          max_threads: Type.Integer({ minimum: 0 }),
          thread_limit: Type.Integer({ minimum: 1, description: 'Threads that may work now: paced by demand between 1 and max_threads (README, Indexing)' }),
          queued_tasks: Type.Integer({ minimum: 0 }),
          completed_tasks: Type.Integer({ minimum: 0 }),
          utilization: Type.Number({ minimum: 0 }),
          active_runs: Type.Integer({ minimum: 0 }),
        },
        'The pipeline threads and the indexing runs feeding them',
      ),
    ),
    watcher: Type.Optional(
      Component(
        'WatcherHealth',
        {
          jobs: Type.Array(Type.Object({ job_id: Type.Integer(), path: Type.String(), mode: Type.String(), ready: Type.Boolean() }, { additionalProperties: true })),
          native: Type.Integer({ minimum: 0 }),
          polling: Type.Integer({ minimum: 0 }),
          worker_restarts: Type.Integer({ minimum: 0 }),
        },
        'The watched folders: native or polling, and why',
      ),
    ),
    queue: Type.Optional(Component('QueueHealth', {}, 'The queue status (as GET /api/queue/status)')),
    scheduler: Type.Optional(Component('SchedulerHealth', {}, 'enabled, paused_queue, combine_mode, rules, check_interval_seconds')),
  },
  { additionalProperties: false, title: 'Status' },
);
export type StatusBody = Static<typeof StatusSchema>;

export const statusOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/status',
    tag: 'status',
    summary: 'Health of the service',
    description: 'Always 200; `status` is `degraded` when the database is unreachable or a component reports a problem.',
    answers: { 200: { description: 'Health', schema: StatusSchema } },
  },
];
