/**
 * JSON over HTTP to the service's API, as the CLI and the web app both speak it: the request (JSON body, bearer
 * token) and the answer read as JSON. Plain fetch, no Node: the web app imports this module too.
 */

/** The fetch init of a JSON request; `token` adds the bearer header. */
export function jsonRequest(method: string, body: unknown, token: string | null, signal?: AbortSignal): RequestInit {
  return {
    method,
    headers: {
      Accept: 'application/json',
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    ...(signal ? { signal } : {}),
  };
}

/** The answer's body as JSON; null when it is empty or not JSON (a proxy's error page, a cut connection). */
export async function readJson(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    return null;
  }
}

/** The error body's message and code, when the answer has them. */
export function errorOf(body: unknown): { code?: string; message?: string } {
  return body !== null && typeof body === 'object' ? (body as { code?: string; message?: string }) : {};
}
