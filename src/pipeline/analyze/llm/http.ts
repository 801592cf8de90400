/**
 * One JSON POST with a deadline, every failure returned as a short reason a person can act on ("timed out after
 * 30 s", "connection refused at http://127.0.0.1:11434", "HTTP 401 Unauthorized: Incorrect API key"). Uses
 * Node's global fetch; the deadline covers reading the body too.
 */

export type HttpOutcome = { ok: true; status: number; body: unknown } | { ok: false; reason: string };

export interface PostOptions {
  headers?: Record<string, string>;
  timeoutMs: number;
  /** Cancels the request from outside (e.g. the task was cancelled). */
  signal?: AbortSignal;
}

const SNIPPET_CHARS = 200;

export async function postJson(url: string, body: unknown, options: PostOptions): Promise<HttpOutcome> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...options.headers },
      body: JSON.stringify(body),
      signal,
    });
    text = await response.text();
  } catch (error) {
    if (deadline.aborted) return { ok: false, reason: `timed out after ${formatSeconds(options.timeoutMs)}` };
    if (options.signal?.aborted) return { ok: false, reason: 'cancelled' };
    return { ok: false, reason: describeNetworkError(error, url) };
  }
  if (!response.ok) {
    const detail = errorDetail(text);
    return { ok: false, reason: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${detail ? `: ${detail}` : ''}` };
  }
  try {
    return { ok: true, status: response.status, body: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reason: `reply was not JSON: ${snippet(text)}` };
  }
}

/** 30000 → "30 s", 250 → "0.25 s". */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(2))} s`;
}

export function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return '(empty)';
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS)}…` : flat;
}

/** fetch wraps socket errors as TypeError('fetch failed') with the system error as `cause`. */
function describeNetworkError(error: unknown, url: string): string {
  const cause = error instanceof Error ? (error.cause as unknown) : undefined;
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? String(cause.code) : undefined;
  const origin = safeOrigin(url);
  switch (code) {
    case 'ECONNREFUSED':
      return `connection refused at ${origin}`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `host not found: ${origin}`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return `connection closed by ${origin}`;
    default: {
      const message = cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
      return `request to ${origin} failed: ${code ? `${code} ` : ''}${message}`.trim();
    }
  }
}

function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** The message inside an error body: OpenAI's {error: {message}}, Ollama's {error: "..."}, or the raw text. */
function errorDetail(text: string): string {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) {
      const error: unknown = parsed.error;
      if (typeof error === 'string') return snippet(error);
      if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') {
        return snippet(error.message);
      }
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.trim() === '' ? '' : snippet(text);
}
