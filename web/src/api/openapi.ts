/**
 * The service's own description (GET /api/openapi.json), fetched once: the settings form and the scheduler's
 * rule editor are built from its schemas, so they offer exactly what the API accepts.
 */
import { get } from './client.js';

export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
}

interface Document {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> }; responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }> }>>;
}

let loading: Promise<Document> | null = null;

function document(): Promise<Document> {
  loading ??= get<Document>('/api/openapi.json').catch((err: unknown) => {
    loading = null;
    throw err;
  });
  return loading;
}

/** The JSON schema of an operation's 200 answer. */
export async function answerSchema(method: string, path: string): Promise<JsonSchema> {
  const schema = (await document()).paths[path]?.[method]?.responses['200']?.content?.['application/json']?.schema;
  if (!schema) throw new Error(`The API description has no answer for ${method.toUpperCase()} ${path}`);
  return schema;
}

/** The JSON schema of an operation's request body. */
export async function requestSchema(method: string, path: string): Promise<JsonSchema> {
  const schema = (await document()).paths[path]?.[method]?.requestBody?.content['application/json']?.schema;
  if (!schema) throw new Error(`The API description has no request body for ${method.toUpperCase()} ${path}`);
  return schema;
}
