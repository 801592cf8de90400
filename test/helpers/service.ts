import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type ServiceConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService, type Service, type StartOptions } from '../../src/service.js';
import { createScratchDatabase, type ScratchDatabase, type TestEngine } from './engines.js';
import { conformanceProblem } from './openapi.js';

export interface TestService {
  service: Service;
  config: ServiceConfig;
  url: string;
  dataDir: string;
  /** JSON request against the service; returns status, parsed body and headers. */
  request(method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  /** Stops the service (keeping its data, so it can be started again with restart()). */
  stop(): Promise<void>;
  restart(): Promise<TestService>;
  /** Restarts on the same data with other environment variables (e.g. another FILESIFT_MODEL_DIR). */
  restartWith(env: Record<string, string>, options?: Omit<StartOptions, 'logger'>): Promise<TestService>;
  /** Stops the service and removes all its data. */
  destroy(): Promise<void>;
}

export interface TestResponse {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

interface Storage {
  dataDir: string;
  scratch: ScratchDatabase | null;
}

/** A real service on a loopback port 0 with a temp data directory, on the given engine. */
export async function startTestService(
  engine: TestEngine,
  env: Record<string, string> = {},
  storage?: Storage,
  options: Omit<StartOptions, 'logger'> = {},
): Promise<TestService> {
  const own: Storage = storage ?? {
    dataDir: await mkdtemp(path.join(tmpdir(), 'filesift-test-')),
    scratch: engine === 'postgres' ? await createScratchDatabase() : null,
  };
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    FILESIFT_DATA_DIR: own.dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    // Tests never reach the model hub (a test of the download passes its own local hub).
    FILESIFT_MODEL_PULL: 'off',
    ...(own.scratch ? { DATABASE_URL: own.scratch.url } : {}),
    ...env,
  });
  const service = await startService(config, { logger: createLogger(config.logLevel), sseHeartbeatMs: 300, ...options });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await service.close('test');
  };
  return {
    service,
    config,
    url: service.url,
    dataDir: own.dataDir,
    request: (method, route, body, headers) => request(service.url, method, route, body, headers),
    stop,
    restart: async () => {
      await stop();
      return startTestService(engine, env, own, options);
    },
    restartWith: async (nextEnv, nextOptions) => {
      await stop();
      return startTestService(engine, nextEnv, own, nextOptions ?? options);
    },
    destroy: async () => {
      await stop();
      await own.scratch?.drop();
      await rm(own.dataDir, { recursive: true, force: true });
    },
  };
}

export async function request(
  base: string,
  method: string,
  route: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<TestResponse> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const res = await fetch(base + route, init);
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  let json = false;
  if (text) {
    try {
      parsed = JSON.parse(text) as Record<string, unknown>;
      json = true;
    } catch {
      parsed = { raw: text };
    }
  }
  // Every JSON exchange must match the OpenAPI document (helpers/openapi.ts).
  if (json) {
    const requestBody = typeof body === 'string' ? tryParse(body) : body;
    const problem = conformanceProblem({ method, route, requestBody, status: res.status, contentType: res.headers.get('content-type'), responseBody: parsed });
    if (problem) throw new Error(`OpenAPI conformance: ${problem}`);
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
