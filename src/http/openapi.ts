/**
 * The OpenAPI 3.1 description of the API, generated from the operations each *.schemas.ts file declares beside
 * its route (TypeBox schemas are JSON Schema 2020-12, OpenAPI 3.1's own dialect, so they go in as they are).
 * test/http/openapi.test.ts checks that every route of the router is here and that what the tests send and
 * receive validates against it.
 */
import Type from '#typebox';
import { errorTable, type ErrorCode } from './errors.js';
import { ErrorBody, type Operation } from './routes/common.schemas.js';
import { filesOperations } from './routes/files.schemas.js';
import { filtersOperations } from './routes/filters.schemas.js';
import { indexingOperations } from './routes/indexing.schemas.js';
import { queueOperations } from './routes/queue.schemas.js';
import { schedulerOperations } from './routes/scheduler.schemas.js';
import { searchOperations } from './routes/search.schemas.js';
import { settingsOperations } from './routes/settings.schemas.js';
import { statusOperations } from './routes/status.schemas.js';
import { updatesOperations } from './routes/updates.schemas.js';
import { watchOperations } from './routes/watch.schemas.js';

/** The description itself and its reference page. */
const docsOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/openapi.json',
    tag: 'docs',
    summary: 'This description (OpenAPI 3.1)',
    description: 'Served without the bearer token: it holds no data of yours.',
    answers: { 200: { description: 'The document', schema: Type.Object({ openapi: Type.String() }, { additionalProperties: true }) } },
  },
  {
    method: 'get',
    path: '/api/docs',
    tag: 'docs',
    summary: 'API reference page (Swagger UI, offline)',
    answers: { 200: { description: 'An HTML page', contentType: 'text/html', schema: Type.String() } },
  },
  {
    method: 'get',
    path: '/api/docs/:asset',
    tag: 'docs',
    summary: "The reference page's scripts and styles",
    params: Type.Object({ asset: Type.String() }, { additionalProperties: false }),
    answers: { 200: { description: 'A file of the page', contentType: 'application/octet-stream', schema: Type.String() } },
  },
];

export const operations: readonly Operation[] = [
  ...statusOperations,
  ...settingsOperations,
  ...indexingOperations,
  ...filesOperations,
  ...searchOperations,
  ...watchOperations,
  ...queueOperations,
  ...schedulerOperations,
  ...filtersOperations,
  ...updatesOperations,
  ...docsOperations,
];

const TAGS: Record<string, string> = {
  search: 'Hybrid search over the index',
  files: 'Indexed files: records, text, statistics',
  watch: 'Watched directories',
  indexing: 'Indexing runs started by hand, and the runs going on',
  queue: 'The debounce queue of file changes',
  scheduler: 'Rules that pause the queue on system conditions',
  filters: 'Which files are indexed',
  settings: 'Settings that apply while the service runs',
  status: 'Health',
  events: 'Live progress',
  docs: 'This description',
};

/** '/api/files/:file_id' → '/api/files/{file_id}'. */
export function openApiPath(routerPath: string): string {
  return routerPath.replace(/:(\w+)/g, '{$1}');
}

function operationId(op: Operation): string {
  const words = op.path.split(/[/_.:-]+/).filter((w) => w !== '' && w !== 'api');
  return op.method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

/** Plain JSON: what the schema objects serialise to. */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

interface SchemaObject {
  properties?: Record<string, { description?: string }>;
  required?: string[];
}

function parameters(where: 'path' | 'query', schema: SchemaObject | undefined): Record<string, unknown>[] {
  if (!schema?.properties) return [];
  return Object.entries(schema.properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (schema.required ?? []).includes(name),
    ...(property.description ? { description: property.description } : {}),
    schema: plain(property),
  }));
}

function errorTableText(): string {
  const rows = (Object.keys(errorTable) as ErrorCode[]).map((code) => `| ${errorTable[code].status} | \`${code}\` |`);
  return ['| Status | code |', '|---|---|', ...rows].join('\n');
}

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

/** The document GET /api/openapi.json answers. */
export function openApiDocument(version: string): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const op of operations) {
    const responses: Record<string, unknown> = {};
    for (const [status, answer] of Object.entries(op.answers)) {
      responses[status] = {
        description: answer.description,
        ...(answer.schema ? { content: { [answer.contentType ?? 'application/json']: { schema: plain(answer.schema) } } } : {}),
      };
    }
    responses.default = { description: 'An error (see the table in the description)', content: { 'application/json': { schema: plain(ErrorBody) } } };
    const params = [...parameters('path', op.params as SchemaObject | undefined), ...parameters('query', op.query as SchemaObject | undefined)];
    (paths[openApiPath(op.path)] ??= {})[op.method] = {
      tags: [op.tag],
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      operationId: operationId(op),
      ...(params.length > 0 ? { parameters: params } : {}),
      ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: plain(op.body) } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'filesift',
      version,
      summary: 'Local file indexing and hybrid search',
      description:
        'A JSON API on this machine. Bodies are JSON (`Content-Type: application/json`); paths work with and without a trailing slash. ' +
        'When the service runs with FILESIFT_API_TOKEN, every request carries `Authorization: Bearer <token>`. Requests must name this ' +
        'machine in their Host header, and a browser may call the API only from the same origin (or one of FILESIFT_CORS_ORIGINS).\n\n' +
        'Every expected error is JSON `{success: false, code, message}` (some endpoints add their own fields):\n\n' +
        errorTableText(),
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'FILESIFT_API_TOKEN, when the service has one' } } },
    security: [{}, { bearer: [] }],
  };
}
