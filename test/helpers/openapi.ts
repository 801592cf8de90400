/**
 * Conformance to the OpenAPI document: every JSON exchange the tests make through helpers/service.ts `request()`
 * is checked against the document the service serves (the request body of a 2xx exchange against its
 * requestBody, every answer against the response of its status, or the error schema). A route that answers
 * something its schemas do not describe fails the test that called it.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiDocument, type OpenApiDocument } from '../../src/http/openapi.js';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export interface Exchange {
  method: string;
  /** The path as requested, with or without a query string. */
  route: string;
  requestBody: unknown;
  status: number;
  contentType: string | null;
  responseBody: unknown;
}

interface MediaObject {
  schema?: unknown;
}
interface OperationObject {
  requestBody?: { content: Record<string, MediaObject> };
  parameters?: { name: string; in: string; required?: boolean; schema: unknown }[];
  responses: Record<string, { content?: Record<string, MediaObject> }>;
}

let document: OpenApiDocument | null = null;
/** The schema of every operation's `default` (error) response. */
let errorSchema: unknown = null;
let matchers: { method: string; pattern: RegExp; template: string }[] = [];
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: false }));
const compiled = new Map<string, ValidateFunction>();

function load(): OpenApiDocument {
  if (document) return document;
  document = openApiDocument('0.0.0-test');
  const anyOperation = Object.values(Object.values(document.paths)[0]!)[0] as OperationObject;
  errorSchema = anyOperation.responses.default!.content!['application/json']!.schema;
  matchers = Object.entries(document.paths).flatMap(([template, item]) =>
    Object.keys(item).map((method) => ({
      method,
      template,
      pattern: new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}/?$`),
    })),
  );
  return document;
}

/** The document's operation for a request, or null (an unknown route: its 404 is checked against the error schema). */
export function operationFor(method: string, route: string): { template: string; operation: OperationObject } | null {
  const doc = load();
  const pathOnly = route.split('?')[0]!;
  const found = matchers.find((m) => m.method === method.toLowerCase() && m.pattern.test(pathOnly));
  if (!found) return null;
  return { template: found.template, operation: doc.paths[found.template]![found.method] as OperationObject };
}

function validator(key: string, schema: unknown): ValidateFunction {
  let v = compiled.get(key);
  if (!v) {
    v = ajv.compile(schema as object);
    compiled.set(key, v);
  }
  return v;
}

function problems(v: ValidateFunction): string {
  return ajv.errorsText(v.errors, { separator: '; ' });
}

/** Answers null when the exchange conforms, else what does not. */
export function conformanceProblem(exchange: Exchange): string | null {
  load();
  const { method, route, status } = exchange;
  if (exchange.contentType !== null && !exchange.contentType.startsWith('application/json')) return null; // pages, assets, streams
  const found = operationFor(method, route);
  if (!found) {
    if (status < 400) return null; // the web app's own files, served outside the API
    const v = validator('error', errorSchema);
    return v(exchange.responseBody) ? null : `${method} ${route} → ${status}: the error body does not match the error schema: ${problems(v)}`;
  }
  const { template, operation } = found;
  if (status >= 200 && status < 300) {
    const requestSchema = operation.requestBody?.content['application/json']?.schema;
    if (requestSchema && exchange.requestBody !== undefined) {
      const v = validator(`${method} ${template} request`, requestSchema);
      if (!v(exchange.requestBody)) return `${method} ${route} was answered ${status}, but its body does not match the documented request: ${problems(v)}`;
    }
    for (const p of operation.parameters ?? []) {
      if (p.in !== 'query') continue;
      const value = new URL(route, 'http://x').searchParams.get(p.name);
      if (value === null) continue;
      const coerced = /^\d+$/.test(value) && ['integer', 'number'].includes((p.schema as { type?: string }).type ?? '') ? Number(value) : value;
      const v = validator(`${method} ${template} ?${p.name}`, p.schema);
      if (!v(coerced)) return `${method} ${route}: query parameter ${p.name} does not match the document: ${problems(v)}`;
    }
  }
  const response = operation.responses[String(status)] ?? (status >= 400 ? operation.responses.default : undefined);
  if (!response) return `${method} ${route} answered ${status}, a status the document does not list for ${method.toUpperCase()} ${template}`;
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return null;
  const v = validator(`${method} ${template} ${response === operation.responses.default ? 'default' : status}`, schema);
  return v(exchange.responseBody) ? null : `${method} ${route} → ${status}: the answer does not match the document: ${problems(v)}`;
}
