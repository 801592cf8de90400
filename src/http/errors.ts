/**
 * One table of expected errors: each code maps to an HTTP status and a message template. The error middleware
 * renders every AppError the same way ({success: false, code, message, ...fields}); anything else is a bug and
 * becomes a 500 without details.
 */
export const errorTable = {
  invalid_request: { status: 400, message: (detail: string) => detail },
  invalid_json: { status: 400, message: (detail: string) => `Request body is not valid JSON: ${detail}` },
  unauthorized: { status: 401, message: () => 'Missing or invalid bearer token' },
  forbidden_host: {
    status: 403,
    message: (host: string) => `Host header '${host}' is not allowed (only loopback names and FILESIFT_ALLOWED_HOSTS)`,
  },
  forbidden_origin: { status: 403, message: (origin: string) => `Origin '${origin}' is not allowed` },
  invalid_path: { status: 400, message: (detail: string) => detail },
  excluded_by_filter: { status: 400, message: (detail: string) => detail },
  already_watched: { status: 400, message: (detail: string) => detail },
  invalid_pattern: { status: 400, message: (detail: string) => detail },
  not_found: { status: 404, message: (what: string) => what },
  pattern_not_found: { status: 404, message: (detail: string) => detail },
  route_not_found: { status: 404, message: (route: string) => `No such endpoint: ${route}` },
  method_not_allowed: {
    status: 405,
    message: (method: string, allowed: string) => `Method ${method} is not allowed here; allowed: ${allowed}`,
  },
  conflict: { status: 409, message: (detail: string) => detail },
  payload_too_large: { status: 413, message: (limit: string) => `Request body is larger than ${limit}` },
  unsupported_media_type: {
    status: 415,
    message: (type: string) => `Request body must be application/json, got '${type}'`,
  },
  service_unavailable: { status: 503, message: (detail: string) => detail },
  internal: { status: 500, message: () => 'Internal server error' },
} as const;

export type ErrorCode = keyof typeof errorTable;
type MessageArgs<C extends ErrorCode> = Parameters<(typeof errorTable)[C]['message']>;

/** Extra top-level fields of an error body, e.g. an endpoint's own `files_indexed` or `job_id`. */
export type ErrorFields = Record<string, string | number | boolean | null | string[]>;

export class AppError extends Error {
  override name = 'AppError';
  readonly status: number;
  /** Client errors are safe to show; 5xx messages are replaced by a generic one. */
  readonly expose: boolean;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fields: ErrorFields = {},
  ) {
    super(message);
    this.status = errorTable[code].status;
    this.expose = this.status < 500;
  }
}

export function createError<C extends ErrorCode>(code: C, ...args: MessageArgs<C>): AppError {
  const template = errorTable[code].message as (...a: MessageArgs<C>) => string;
  return new AppError(code, template(...args));
}

/** Same as createError, with extra body fields (an endpoint's error bodies keep its own fields). */
export function createErrorWith<C extends ErrorCode>(code: C, fields: ErrorFields, ...args: MessageArgs<C>): AppError {
  const template = errorTable[code].message as (...a: MessageArgs<C>) => string;
  return new AppError(code, template(...args), fields);
}
