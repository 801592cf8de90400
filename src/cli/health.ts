/**
 * `filesift health`: the container's health check. Asks the running service for its status and succeeds only
 * when the service answers and its database is reachable. GET /api/status/ itself always answers 200 (it reports
 * a lost database as `degraded`), so a check on the HTTP code alone would call a service without its database
 * healthy. Exit 0 healthy, 1 not; one line either way.
 */
import { loadConfig } from '../config.js';
import { defineCommand, type CliIo } from './program.js';

const TIMEOUT_MS = 4000;

interface StatusBody {
  status?: string;
  ready?: boolean;
  database?: { reachable?: boolean; error?: string };
}

export async function checkHealth(env: NodeJS.ProcessEnv, io: Pick<CliIo, 'stdout' | 'stderr'>): Promise<number> {
  const config = loadConfig(env);
  // The service listens on HOST; a wildcard address is reached on loopback.
  const host = ['0.0.0.0', '::', '[::]'].includes(config.host) ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${config.port}/api/status/`;
  let body: StatusBody;
  try {
    const res = await fetch(url, {
      headers: config.apiToken ? { authorization: `Bearer ${config.apiToken}` } : {},
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (res.status !== 200) {
      io.stderr.write(`unhealthy: ${url} answered ${res.status}\n`);
      return 1;
    }
    body = (await res.json()) as StatusBody;
  } catch (err) {
    io.stderr.write(`unhealthy: ${url} did not answer (${err instanceof Error ? err.message : String(err)})\n`);
    return 1;
  }
  if (body.database?.reachable !== true) {
    io.stderr.write(`unhealthy: the database is unreachable (${body.database?.error ?? 'no detail'})\n`);
    return 1;
  }
  io.stdout.write(`healthy: status ${body.status ?? '?'}, ready ${String(body.ready ?? '?')}\n`);
  return 0;
}

export const healthCommand = defineCommand({
  name: 'health',
  summary: 'Exit 0 when the service on HOST:PORT answers and its database is reachable, else 1 (health checks)',
  spec: {
    command: 'filesift health',
    about: 'For container health checks: reads HOST, PORT and FILESIFT_API_TOKEN from the environment like the service.',
    options: {},
  },
  run: (_line, io) => checkHealth(io.env, io),
});
