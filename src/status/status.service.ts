import type { StoreHandle } from '../store/spawn.js';

/** What a component reports about itself; `ok: false` makes the overall status 'degraded'. */
export interface ComponentHealth {
  ok: boolean;
  [detail: string]: unknown;
}

/** A service that reports its own health (each actor and service owns a health()). */
export interface HealthReporter {
  health(): ComponentHealth | Promise<ComponentHealth>;
}

export interface DatabaseHealth extends ComponentHealth {
  engine: 'pglite' | 'postgres';
  location: string;
  reachable: boolean;
  latency_ms: number | null;
  server_version: string | null;
  schema_version: number | null;
  error?: string;
}

/** Components that report their own health, each shown as a top-level field of the status answer. */
export type ComponentName = 'embedder' | 'worker_pool' | 'watcher' | 'queue' | 'scheduler';

export type StatusReport = {
  status: 'ok' | 'degraded';
  /**
   * Start-up is over: every watched folder is watched live (a change made from now on is seen as it happens;
   * one made before is found by the start-up reconcile). False while the watchers start after a restart.
   */
  ready: boolean;
  /** Active watch jobs. */
  jobs: number | null;
  version: string;
  started_at: string;
  uptime_seconds: number;
  database: DatabaseHealth;
} & Partial<Record<ComponentName, ComponentHealth>>;

const PROBE_TIMEOUT_MS = 2000;

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${PROBE_TIMEOUT_MS} ms`)), PROBE_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Health for GET /api/status/: a real round trip to the database (timed), the active job count, and what each
 * component reports of itself through its health() (embedder, worker pool, watcher, queue, scheduler).
 */
export class StatusService {
  readonly #startedAt = new Date();

  constructor(
    private readonly store: StoreHandle,
    private readonly version: string,
    private readonly components: Partial<Record<ComponentName, HealthReporter>> = {},
    private readonly ready: () => boolean = () => true,
  ) {}

  async check(): Promise<StatusReport> {
    const [database, jobs, components] = await Promise.all([this.#database(), this.#jobs(), this.#components()]);
    const healthy = database.ok && Object.values(components).every((c) => c.ok);
    return {
      status: healthy ? 'ok' : 'degraded',
      ready: this.ready(),
      jobs,
      version: this.version,
      started_at: this.#startedAt.toISOString(),
      uptime_seconds: Math.round((Date.now() - this.#startedAt.getTime()) / 1000),
      database,
      ...components,
    };
  }

  async #database(): Promise<DatabaseHealth> {
    const base = { engine: this.store.engine, location: this.store.location };
    const started = performance.now();
    try {
      const ping = await withTimeout(this.store.api.health.ping(), 'database');
      const latency = Math.round((performance.now() - started) * 100) / 100;
      return { ...base, ok: true, reachable: true, latency_ms: latency, server_version: ping.serverVersion, schema_version: ping.schemaVersion };
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      return { ...base, ok: false, reachable: false, latency_ms: null, server_version: null, schema_version: null, error };
    }
  }

  async #jobs(): Promise<number | null> {
    try {
      return await withTimeout(this.store.api.jobs.countActive(), 'database');
    } catch {
      return null;
    }
  }

  async #components(): Promise<Partial<Record<ComponentName, ComponentHealth>>> {
    const entries = await Promise.all(
      (Object.entries(this.components) as [ComponentName, HealthReporter][]).map(async ([name, reporter]): Promise<[ComponentName, ComponentHealth]> => {
        try {
          return [name, await withTimeout(Promise.resolve(reporter.health()), name)];
        } catch (err) {
          return [name, { ok: false, error: err instanceof Error ? err.message : String(err) }];
        }
      }),
    );
    return Object.fromEntries(entries);
  }
}
