/**
 * The commands' way to the running service: JSON over HTTP with the bearer token, and its event stream. Every
 * failure becomes a CliError with one line a person can act on: the API's own message and code, or why the
 * service cannot be reached.
 */
import { EventSource } from 'eventsource';
import type { EventMap, EventName } from '../events/types.js';
import { errorOf, jsonRequest, readJson } from '../lib/json-http.js';
import { CliError, serviceUrl } from './program.js';

export type ServiceEvent = { [N in EventName]: { type: N; data: EventMap[N] } }[EventName];

export interface EventSubscription {
  close(): void;
}

export class ServiceClient {
  constructor(
    readonly baseUrl: string,
    private readonly token: string | null,
  ) {}

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(this.baseUrl + path, jsonRequest(method, body, this.token));
    } catch (err) {
      throw this.#unreachable(err);
    }
    const parsed = await readJson(res);
    if (res.ok) return parsed as T;
    const error = errorOf(parsed);
    if (res.status === 401) throw new CliError(`${error.message ?? 'unauthorized'}: give the service's token with --token or FILESIFT_API_TOKEN`);
    throw new CliError(`${error.message ?? `HTTP ${res.status}`} (${error.code ?? res.status})`);
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.request<T>('DELETE', path);
  }

  /**
   * Subscribes to the given events; resolves once the stream is open (so nothing published after that is
   * missed). The stream reconnects by itself, replaying what it missed.
   */
  events(types: readonly EventName[], onEvent: (event: ServiceEvent) => void): Promise<EventSubscription> {
    const source = new EventSource(`${this.baseUrl}/api/updates?types=${types.join(',')}`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, ...this.#auth() } }),
    });
    for (const type of types) {
      source.addEventListener(type, (e) => onEvent({ type, data: JSON.parse((e as unknown as { data: string }).data) } as ServiceEvent));
    }
    return new Promise((resolve, reject) => {
      source.onopen = () => {
        source.onerror = null;
        resolve({ close: () => source.close() });
      };
      source.onerror = (e) => {
        source.close();
        reject(e.code === 401 ? new CliError('unauthorized: give the service\'s token with --token or FILESIFT_API_TOKEN') : this.#unreachable(e));
      };
    });
  }

  #auth(): Record<string, string> {
    return this.token ? { Authorization: `Bearer ${this.token}` } : {};
  }

  #unreachable(err: unknown): CliError {
    // fetch's error hides the system's reason in its cause (an AggregateError when several addresses were tried).
    const cause = (err as { cause?: { code?: string; message?: string; errors?: { code?: string }[] } }).cause;
    const reason = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (err as { message?: string }).message ?? String(err);
    return new CliError(`cannot reach the service at ${this.baseUrl} (${reason}): is it running? Start it with 'filesift serve'`);
  }
}

/** The client for a command's --url and --token (or FILESIFT_URL / HOST and PORT, and FILESIFT_API_TOKEN). */
export function clientFor(values: { url?: string | undefined; token?: string | undefined }, env: NodeJS.ProcessEnv): ServiceClient {
  return new ServiceClient(serviceUrl(values.url, env), values.token ?? (env.FILESIFT_API_TOKEN?.trim() || null));
}
