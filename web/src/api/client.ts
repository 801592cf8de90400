/**
 * The one way the app talks to the service: same origin, JSON, and the bearer token when the service wants
 * one. A 401 asks the person for the token once (the prompt is the app's, see app.tsx), keeps it for the tab
 * (sessionStorage) and repeats the request.
 */
import { errorOf, jsonRequest, readJson } from '../../../src/lib/json-http.js';
import type { ErrorBody } from './types.js';

const TOKEN_KEY = 'filesift.token';

/** An answer that is not 2xx: the API's own message and code (see the README's error table). */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: ErrorBody | null,
  ) {
    super(message);
  }
}

let token: string | null = sessionStorage.getItem(TOKEN_KEY);
let askToken: (() => Promise<string | null>) | null = null;
let asking: Promise<string | null> | null = null;

/** The app registers how to ask for the token (a dialog); null answers give up. */
export function onTokenNeeded(ask: () => Promise<string | null>): void {
  askToken = ask;
}

export function setToken(value: string | null): void {
  token = value;
  if (value) sessionStorage.setItem(TOKEN_KEY, value);
  else sessionStorage.removeItem(TOKEN_KEY);
}

export function authHeaders(): Record<string, string> {
  return token ? { Authorization: `Bearer ${token}` } : {};
}

async function newToken(): Promise<string | null> {
  if (!askToken) return null;
  asking ??= askToken().finally(() => {
    asking = null;
  });
  const value = await asking;
  if (value) setToken(value);
  return value;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export async function api<T>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(path, jsonRequest(method, body, token, options.signal));
    if (res.status === 401 && attempt < 3 && (await newToken())) continue;
    const parsed = await readJson(res);
    if (res.ok) return parsed as T;
    const error = errorOf(parsed);
    throw new ApiError(res.status, error.code ?? 'http_error', error.message ?? `HTTP ${res.status}`, parsed === null ? null : (parsed as ErrorBody));
  }
}

export const get = <T>(path: string, options?: RequestOptions) => api<T>('GET', path, undefined, options);
export const post = <T>(path: string, body?: unknown, options?: RequestOptions) => api<T>('POST', path, body, options);
export const put = <T>(path: string, body: unknown) => api<T>('PUT', path, body);
export const del = <T>(path: string, body?: unknown) => api<T>('DELETE', path, body);

/** A message for a person: the API's own for an ApiError, else the network's. */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return err.name === 'TypeError' ? `The service cannot be reached (${err.message})` : err.message;
  return String(err);
}
