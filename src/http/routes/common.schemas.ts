/**
 * What every route description shares: the error body, the shape of an operation (what the OpenAPI document,
 * src/http/openapi.ts, is generated from), and small schema helpers. Like every *.schemas.ts file it imports
 * schemas and types only (no Koa), so the CLI and the web app can use the API's types.
 */
import Type, { type TObject, type TSchema } from '#typebox';
import { errorTable, type ErrorCode } from '../errors.js';

const ERROR_CODES = Object.keys(errorTable) as ErrorCode[];

/** Every expected error: 4xx (and 500 for a bug, without details), with an endpoint's own fields beside these. */
export const ErrorBody = Type.Object(
  {
    success: Type.Literal(false),
    code: Type.Enum(ERROR_CODES, { description: 'A machine code from the one error table (README, Errors)' }),
    message: Type.String({ description: 'What went wrong, for a person' }),
  },
  { additionalProperties: true, title: 'Error', description: "Some endpoints add their own fields (e.g. 'files_indexed', 'job_id', 'errors', 'field')" },
);

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

export interface OperationAnswer {
  description: string;
  /** JSON unless `contentType` says otherwise. */
  schema?: TSchema;
  contentType?: string;
}

/** One endpoint as the OpenAPI document describes it; the route beside it implements it with these schemas. */
export interface Operation {
  method: HttpMethod;
  /** The router's path: '/api/files/:file_id' (served with and without a trailing slash). */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  /** Path parameters. */
  params?: TObject;
  query?: TObject;
  body?: TSchema;
  /** Success answers by status. Errors are ErrorBody for every operation. */
  answers: Record<number, OperationAnswer>;
}

/** A path parameter that is a positive integer id. */
export const IdParam = (name: string, description: string) =>
  Type.Object({ [name]: Type.Integer({ minimum: 1, description }) }, { additionalProperties: false });

/** ISO 8601 with zone. */
export const Instant = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });

export const Nullable = <S extends TSchema>(schema: S) => Type.Union([schema, Type.Null()]);

/** [start, end) of a text (JavaScript string indexes). A pair as an array: TypeBox's Tuple writes draft-07 `items`. */
export const TextRanges = (description: string) =>
  Type.Array(Type.Array(Type.Integer({ minimum: 0 }), { minItems: 2, maxItems: 2 }), { description });

/** `{success: true, message}` answers. */
export const SuccessFields = {
  success: Type.Literal(true),
  message: Type.String(),
};
