/**
 * The architecture, as rules `npm run lint:arch` (part of `npm test`) enforces on every import of src/ and
 * workers/ (type-only imports included). Layers, bottom to top; a layer may import its own and lower ones only:
 *
 *   foundation  lib/, types/, paths.ts, logger.ts, config.ts, validation.ts
 *   events      the bus and the event catalogue
 *   pipeline    code that runs in the pipeline threads, and the pool that feeds them
 *   store       SQL: engines, migrations, repositories, query builders, the store's thread
 *   domain      filters/, settings/, status/
 *   indexing    the per-file flow and indexing runs
 *   models      the embedding model's life on the main thread
 *   actors      watcher, queue, scheduler (each folder: its core and its service)
 *   search      the search service
 *   front ends  http/, cli/
 *   root        service.ts (composition root) and service-start.ts (its first steps), cli.ts (entry point)
 *
 * One exception, for types only: the event catalogue (events/types.ts) names the payload types of every
 * publisher, so it may `import type` from any layer below the front ends.
 *
 * The API's request and answer schemas (src/http/routes/*.schemas.ts) import no Koa: the CLI may import their
 * types, and the web app (web/, outside the layers, built by vite) may import their types and the event
 * catalogue's, the plain functions of src/lib/format.ts and src/lib/json-http.ts, and nothing else of src/.
 */
const LAYERS = [
  ['foundation', '^src/(lib/|types/|paths\\.ts|logger\\.ts|config\\.ts|validation\\.ts)'],
  ['events', '^src/events/'],
  ['pipeline', '^src/pipeline/'],
  ['store', '^src/store/'],
  ['domain', '^src/(filters|settings|status)/'],
  ['indexing', '^src/indexing/'],
  ['models', '^src/models/'],
  ['actors', '^src/actors/'],
  ['search', '^src/search/'],
  ['front ends', '^src/(http|cli)/'],
  ['root', '^src/(service|service-start|cli)\\.ts$'],
];

const upward = LAYERS.slice(0, -1).map(([name, path], i) => ({
  name: `layer-${name.replace(/\s+/g, '-')}`,
  comment: `${name} may not import a higher layer (${LAYERS.slice(i + 1).map(([n]) => n).join(', ')})`,
  severity: 'error',
  from: { path, ...(name === 'events' ? { pathNot: '^src/events/types\\.ts$' } : {}) },
  to: { path: LAYERS.slice(i + 1).map(([, p]) => `(${p})`).join('|') },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycle, of values or of types',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...upward,
    {
      name: 'event-catalogue-types-only',
      comment: 'The event catalogue may name payload types of any layer below the front ends, as types only',
      severity: 'error',
      from: { path: '^src/events/types\\.ts$' },
      to: { path: '^src/(http|cli)/|^src/(service|service-start|cli)\\.ts$' },
    },
    {
      name: 'event-catalogue-no-values',
      severity: 'error',
      from: { path: '^src/events/types\\.ts$' },
      to: { path: '^src/', pathNot: '^src/events/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'http-only-from-the-root',
      comment: 'Only the composition root (service.ts, service-start.ts) knows the HTTP front end; the CLI may name the API schemas\' types',
      severity: 'error',
      from: { path: '^(src|workers)/', pathNot: '^src/http/|^src/service(-start)?\\.ts$' },
      to: { path: '^src/http/', pathNot: '^src/http/routes/[^/]+\\.schemas\\.ts$' },
    },
    {
      name: 'cli-imports-api-types-only',
      comment: 'The CLI talks to the running service over HTTP: it may use the API schemas as types, never run them',
      severity: 'error',
      from: { path: '^src/' , pathNot: '^src/http/|^src/service\\.ts$' },
      to: { path: '^src/http/routes/[^/]+\\.schemas\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'schemas-are-koa-free',
      comment: 'A schemas file imports schemas, the error table and lower layers: never a route, a middleware or Koa',
      severity: 'error',
      from: { path: '^src/http/routes/[^/]+\\.schemas\\.ts$' },
      to: { path: '^src/http/|^node_modules/(koa|@koa)', pathNot: '^src/http/routes/[^/]+\\.schemas\\.ts$|^src/http/errors\\.ts$' },
    },
    {
      name: 'web-imports-api-types-only',
      comment: 'The web app runs in a browser: it may name the API schemas\' and the events\' types, and import nothing else of src/',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^src/', pathNot: '^src/http/routes/[^/]+\\.schemas\\.ts$|^src/events/types\\.ts$|^src/lib/(format|json-http)\\.ts$' },
    },
    {
      name: 'web-imports-types-not-values',
      comment: 'Of src/, only the formatting and JSON-request functions run in the browser',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^src/', pathNot: '^src/lib/(format|json-http)\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'queue-knows-no-watcher',
      comment: 'The watcher feeds the queue; the queue and the scheduler know nothing of the actors above them',
      severity: 'error',
      from: { path: '^src/actors/(queue|scheduler)/' },
      to: { path: '^src/actors/watcher/' },
    },
    {
      name: 'scheduler-knows-no-queue',
      severity: 'error',
      from: { path: '^src/actors/scheduler/' },
      to: { path: '^src/actors/queue/' },
    },
    {
      name: 'threads-stay-in-their-lane',
      comment: 'Worker entry points load in-thread code: the pipeline, the store, the watcher core, snippets; never a service',
      severity: 'error',
      from: { path: '^workers/' },
      to: { path: '^src/', pathNot: '^src/(pipeline|store|lib|types)/|^src/paths\\.ts$|^src/actors/watcher/(watcher-core|move-pairer|protocol)\\.ts$|^src/models/query-embedder\\.ts$|^src/search/snippet(-lane)?\\.ts$' },
    },
    {
      name: 'extractors-stay-in-the-threads',
      comment:
        'The format extractors (and the parse stage that loads them all) run in the pipeline threads: imported on the ' +
        'main thread they cost every start ~0.5 CPU-s and ~35 MB of modules it never runs (stages/stat.ts stats a file)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/pipeline/' },
      to: { path: '^src/pipeline/(formats/|stages/parse\\.ts$)', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-orphans',
      comment: 'Every module is used by something (entry points, workers and declarations excepted)',
      severity: 'error',
      from: { orphan: true, pathNot: '\\.d\\.ts$|^src/(cli|service)\\.ts$|^workers/|^web/(src/main\\.tsx|vite\\.config\\.ts)$' },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    exclude: { path: '^(dist|test|bench|scripts)/' },
  },
};
