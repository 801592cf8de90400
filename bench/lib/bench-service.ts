/**
 * A real filesift service for the search benchmarks: started in-process on a loopback port, on PGlite in a temp
 * data directory (or a directory the caller keeps), or on a scratch database created on a PostgreSQL server and
 * dropped afterwards. Everything the benchmarks measure goes through its HTTP API.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService, type Service } from '../../src/service.js';
import { createScratchDatabase } from '../../test/helpers/engines.js';
import { directoryBytes } from './files.js';

export interface BenchServiceOptions {
  /** PostgreSQL server URL: a scratch database is created on it (and dropped on close). Default: PGlite. */
  pgUrl?: string;
  /** With pgUrl: use (and create if missing) this database instead of a scratch one, and keep it on close. */
  pgDatabase?: string;
  /** Keep the index here (PGlite) instead of a fresh temp directory removed on close. */
  dataDir?: string;
  /** Extra environment for loadConfig (FILESIFT_MODEL_DIR and FILESIFT_SHARED_BUFFERS_MB are passed through from the process). */
  env?: Record<string, string>;
}

export interface BenchService {
  service: Service;
  url: string;
  engine: 'pglite' | 'postgres';
  dataDir: string;
  /** The scratch PostgreSQL database (dropped on close), or null on PGlite. */
  databaseUrl: string | null;
  /**
   * Size of the index's tables and indexes: pg_database_size of the scratch PostgreSQL database, or PGlite's
   * base/ folder (its databases; the write-ahead log beside it is not counted).
   */
  databaseBytes(): Promise<number>;
  /** JSON request; throws on a non-2xx answer (a benchmark must not score error bodies). */
  call<T>(method: string, route: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

/** pg_database_size of the database `url` names. */
export async function databaseSize(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ size: string }>('SELECT pg_database_size(current_database()) AS size');
    return Number(rows[0]!.size);
  } finally {
    await client.end();
  }
}

export async function startBenchService(options: BenchServiceOptions = {}): Promise<BenchService> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'filesift-bench-')));
  await mkdir(dataDir, { recursive: true });
  const scratch = !options.pgUrl
    ? null
    : options.pgDatabase
      ? { url: await ensureDatabase(options.pgUrl, options.pgDatabase), drop: async () => undefined }
      : await createScratchDatabase(options.pgUrl, 'filesift_bench');
  const passThrough: Record<string, string> = {};
  for (const name of ['FILESIFT_MODEL_DIR', 'FILESIFT_SHARED_BUFFERS_MB']) {
    const value = process.env[name];
    if (value) passThrough[name] = value;
  }
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    FILESIFT_DATA_DIR: dataDir,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // Benchmarks never reach the model hub: FILESIFT_MODEL_DIR names the model to measure.
    FILESIFT_MODEL_PULL: 'off',
    ...passThrough,
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
    ...options.env,
  });
  let service: Service;
  try {
    service = await startService(config, { logger: createLogger(config.logLevel) });
  } catch (err) {
    await scratch?.drop();
    if (ownDir) await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
  const url = service.url;
  return {
    service,
    url,
    engine: scratch ? 'postgres' : 'pglite',
    dataDir,
    databaseUrl: scratch?.url ?? null,
    call: (method, route, body) => callJson(url, method, route, body),
    databaseBytes: () => (scratch ? databaseSize(scratch.url) : directoryBytes(path.join(service.store.location, 'base'))),
    async close() {
      await service.close('benchmark done');
      await scratch?.drop();
      if (ownDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The URL of database `name` on the server `adminUrl`, created when missing (kept: nothing here drops it). */
export async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function callJson<T>(base: string, method: string, route: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const res = await fetch(base + route, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    ...(signal ? { signal } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

export interface IndexedRun {
  seconds: number;
  indexed: number;
  skipped: number;
  failed: number;
  totalFiles: number;
}

/**
 * Starts a directory run (POST /api/index/directory) and waits for its index_run_completed event; answers its
 * counts and the index size afterwards (GET /api/files/stats). Answers as soon as the run has started, with its id
 * and `done`, so a caller can do something else (search) while the run goes on.
 */
export async function startDirectoryRun(bench: BenchService, directory: string, force: boolean): Promise<{ runId: string; done: Promise<IndexedRun> }> {
  const t0 = performance.now();
  const completed = new Map<string, { indexed: number; skipped: number; failed: number; cancelled: boolean }>();
  const waiters = new Map<string, () => void>();
  const unsubscribe = bench.service.bus.subscribe((e) => {
    if (e.type !== 'index_run_completed') return;
    const d = e.data as { run_id: string; indexed: number; skipped: number; failed: number; cancelled: boolean };
    completed.set(d.run_id, d);
    waiters.get(d.run_id)?.();
  });
  let runId: string;
  try {
    const answer = await bench.call<{ success: boolean; run_id: string; message: string }>('POST', '/api/index/directory', { directory_path: directory, force });
    runId = answer.run_id;
  } catch (err) {
    unsubscribe();
    throw err;
  }
  const done = (async (): Promise<IndexedRun> => {
    try {
      if (!completed.has(runId)) await new Promise<void>((resolve) => waiters.set(runId, resolve));
      const seconds = (performance.now() - t0) / 1000;
      const { cancelled, indexed, skipped, failed } = completed.get(runId)!;
      if (cancelled) throw new Error(`indexing run ${runId} of ${directory} was cancelled`);
      const stats = await bench.call<{ total_files: number }>('GET', '/api/files/stats');
      return { seconds, indexed, skipped, failed, totalFiles: stats.total_files };
    } finally {
      unsubscribe();
    }
  })();
  return { runId, done };
}

export async function indexDirectory(bench: BenchService, directory: string, force: boolean): Promise<IndexedRun> {
  const { done } = await startDirectoryRun(bench, directory, force);
  return done;
}

/** The part of a POST /api/search/ answer the benchmarks read. */
export interface SearchAnswer {
  results: { file: { filename: string; file_path: string } }[];
  mode: string;
  notice: string | null;
  did_you_mean: string | null;
  took_ms: number;
}

/** A search; `signal` closes its request (as the web app drops the search of a keystroke it supersedes). */
export function search(
  bench: { url: string },
  body: { query: string; limit?: number; mode?: string; facets?: boolean; directory?: string },
  signal?: AbortSignal,
): Promise<SearchAnswer> {
  return callJson<SearchAnswer>(bench.url, 'POST', '/api/search/', body, signal);
}

export interface Sample {
  /** Round trip seen by the client: request sent → JSON answer parsed. */
  ms: number;
  /** The service's own took_ms. */
  serverMs: number;
}

export interface Measured {
  samples: Sample[];
  seconds: number;
  /** CPU time of this whole process meanwhile (service, PGlite's worker, clients), milliseconds. */
  cpuMs: number;
}

/** The folder the i-th query is searched in (bench:search --form directory), or none. */
export type Scope = (i: number) => string | undefined;

/**
 * `clients` clients asking queries[i % n] for i = 0, 1, 2... (one shared cursor) until `more(i)` says stop; each
 * waits for its answer before asking again. Answers every sample and the wall time.
 */
export async function drive(
  bench: BenchService,
  queries: readonly string[],
  mode: string,
  clients: number,
  more: (i: number) => boolean,
  extra: { facets?: boolean } = {},
  scope?: Scope,
): Promise<Measured> {
  const samples: Sample[] = [];
  let next = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (more(next)) {
        const i = next++;
        const query = queries[i % queries.length]!;
        const directory = scope?.(i % queries.length);
        const started = performance.now();
        const answer = await search(bench, { query, mode, ...extra, ...(directory ? { directory } : {}) });
        samples.push({ ms: performance.now() - started, serverMs: answer.took_ms });
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return { samples, seconds: (performance.now() - t0) / 1000, cpuMs: (cpu.user + cpu.system) / 1000 };
}
