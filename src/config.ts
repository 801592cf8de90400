import { readFileSync } from 'node:fs';
import path from 'node:path';
import envPaths from 'env-paths';
import { packageRoot } from './paths.js';

/** Service configuration, read once from the environment at start-up (settings that change live are in settings/). */
export interface ServiceConfig {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  apiToken: string | null;
  modelDir: string | null;
  /** The transformer model the service uses and pulls (FILESIFT_MODEL, default all-MiniLM-L6-v2). */
  model: ModelName;
  /**
   * Model download: 'off' (default: the service never reaches the network by itself) or 'auto' (fetch the configured
   * model in the background when it is missing).
   */
  modelPull: ModelPullMode;
  /** Which export of the model a pull fetches (FILESIFT_MODEL_VARIANT, default int8). */
  modelVariant: ModelVariant;
  /** A mirror of the model hub (FILESIFT_MODEL_BASE_URL); null: the hub itself. */
  modelBaseUrl: string | null;
  /** Advanced/tests: a JSON manifest listing other files to pull than the model's (FILESIFT_MODEL_MANIFEST). */
  modelManifest: string | null;
  logLevel: LogLevel;
  /** Diagnostics: log each thread's memory every this many ms (FILESIFT_MEMORY_LOG_MS; null: never). */
  memoryLogMs: number | null;
  /** PGlite's shared_buffers in MB (FILESIFT_SHARED_BUFFERS_MB); null: sized from the database at each start. */
  sharedBuffersMb: number | null;
  /** Extra Host header names accepted besides loopback names (DNS-rebinding defence). */
  allowedHosts: string[];
  /** Origins allowed by CORS; empty means no CORS headers at all. */
  corsOrigins: string[];
  version: string;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DEFAULT_PORT = 60534;

export const MODEL_PULL_MODES = ['off', 'auto'] as const;
export type ModelPullMode = (typeof MODEL_PULL_MODES)[number];
export const MODEL_VARIANTS = ['int8', 'fp32'] as const;
export type ModelVariant = (typeof MODEL_VARIANTS)[number];
/** The transformer models filesift knows by name (how each runs: pipeline/embedders/known-models.ts). */
export const MODEL_NAMES = ['all-MiniLM-L6-v2', 'bge-small-en-v1.5'] as const;
export type ModelName = (typeof MODEL_NAMES)[number];
export const DEFAULT_MODEL: ModelName = 'all-MiniLM-L6-v2';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost', '[::1]']);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(host);
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** The version in package.json. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? '0.0.0';
}

/** FILESIFT_DATA_DIR, or the platform's user data directory. */
export function dataDirFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.FILESIFT_DATA_DIR?.trim() || envPaths('filesift', { suffix: '' }).data);
}

/** The model-download variables (shared by the service and `filesift pull-model`). */
export function modelPullFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): Pick<ServiceConfig, 'model' | 'modelPull' | 'modelVariant' | 'modelBaseUrl' | 'modelManifest'> {
  const modelText = env.FILESIFT_MODEL?.trim() || DEFAULT_MODEL;
  const model = MODEL_NAMES.find((m) => m.toLowerCase() === modelText.toLowerCase());
  if (!model) throw new ConfigError(`FILESIFT_MODEL must be one of ${MODEL_NAMES.join(', ')}, got '${env.FILESIFT_MODEL}'`);
  const modelPull = (env.FILESIFT_MODEL_PULL?.trim().toLowerCase() || 'off') as ModelPullMode;
  if (!MODEL_PULL_MODES.includes(modelPull)) {
    throw new ConfigError(`FILESIFT_MODEL_PULL must be one of ${MODEL_PULL_MODES.join(', ')}, got '${env.FILESIFT_MODEL_PULL}'`);
  }
  const modelVariant = (env.FILESIFT_MODEL_VARIANT?.trim().toLowerCase() || 'int8') as ModelVariant;
  if (!MODEL_VARIANTS.includes(modelVariant)) {
    throw new ConfigError(`FILESIFT_MODEL_VARIANT must be one of ${MODEL_VARIANTS.join(', ')}, got '${env.FILESIFT_MODEL_VARIANT}'`);
  }
  const modelBaseUrl = env.FILESIFT_MODEL_BASE_URL?.trim() || null;
  if (modelBaseUrl && !/^https?:\/\//.test(modelBaseUrl)) {
    throw new ConfigError(`FILESIFT_MODEL_BASE_URL must start with http:// or https://`);
  }
  const manifest = env.FILESIFT_MODEL_MANIFEST?.trim();
  return { model, modelPull, modelVariant, modelBaseUrl, modelManifest: manifest ? path.resolve(manifest) : null };
}

/**
 * A service running as root can read every file on the machine; without a token, anyone who can reach its port
 * (every local user, on loopback) could have it index /etc/shadow and read it back in search results. So as
 * root the token is required, as it is on a non-loopback address (loadConfig checks that one). Checked by
 * `filesift serve`, the entry point every deployment runs (the Docker image runs as an unprivileged user).
 */
export function checkPrivileges(config: Pick<ServiceConfig, 'apiToken'>, uid: number | undefined = process.getuid?.()): void {
  if (uid === 0 && !config.apiToken) {
    throw new ConfigError(
      `running as root without FILESIFT_API_TOKEN: any local user could make filesift read any file on this machine. ` +
        `Run filesift as your own user, or set FILESIFT_API_TOKEN (every request must then carry 'Authorization: Bearer <token>')`,
    );
  }
}

/** Reads and checks the environment; every problem names the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const host = env.HOST?.trim() || '127.0.0.1';
  const portText = env.PORT?.trim() || String(DEFAULT_PORT);
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT must be an integer from 0 to 65535, got '${portText}'`);
  }
  const logLevel = (env.LOG_LEVEL?.trim().toLowerCase() || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${env.LOG_LEVEL}'`);
  }
  const apiToken = env.FILESIFT_API_TOKEN?.trim() || null;
  if (!isLoopbackHost(host) && !apiToken) {
    throw new ConfigError(
      `HOST is '${host}', which is not a loopback address: refusing to start without FILESIFT_API_TOKEN ` +
        `(every request must then carry 'Authorization: Bearer <token>')`,
    );
  }
  const dataDir = dataDirFromEnv(env);
  const databaseUrl = env.DATABASE_URL?.trim() || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(`DATABASE_URL must start with postgres:// or postgresql://`);
  }
  const modelDir = env.FILESIFT_MODEL_DIR?.trim() ? path.resolve(env.FILESIFT_MODEL_DIR.trim()) : null;
  const memoryLogText = env.FILESIFT_MEMORY_LOG_MS?.trim();
  const memoryLogMs = memoryLogText ? Number(memoryLogText) : null;
  if (memoryLogMs !== null && (!Number.isInteger(memoryLogMs) || memoryLogMs < 100)) {
    throw new ConfigError(`FILESIFT_MEMORY_LOG_MS must be an integer of at least 100 (milliseconds), got '${memoryLogText}'`);
  }
  const buffersText = env.FILESIFT_SHARED_BUFFERS_MB?.trim();
  const sharedBuffersMb = buffersText ? Number(buffersText) : null;
  if (sharedBuffersMb !== null && (!Number.isInteger(sharedBuffersMb) || sharedBuffersMb < 1 || sharedBuffersMb > 4096)) {
    throw new ConfigError(`FILESIFT_SHARED_BUFFERS_MB must be a whole number of megabytes from 1 to 4096, got '${buffersText}'`);
  }
  return {
    host,
    port,
    dataDir,
    databaseUrl,
    apiToken,
    modelDir,
    ...modelPullFromEnv(env),
    logLevel,
    memoryLogMs,
    sharedBuffersMb,
    allowedHosts: list(env.FILESIFT_ALLOWED_HOSTS).map((h) => h.toLowerCase()),
    corsOrigins: list(env.FILESIFT_CORS_ORIGINS),
    version: packageVersion(),
  };
}
