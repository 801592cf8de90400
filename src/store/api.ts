/**
 * The store's interface without its implementation: the repositories' types, every method with its priority on the
 * embedded engine, and the timing wrapper. The main thread needs only this to talk to PGlite's thread, so it does
 * not load the repositories, their SQL and the PostgreSQL driver (~0.15 CPU-s of every start) when they run there.
 */
import type { ConfigRepository } from './repositories/config.repository.js';
import type { FilesRepository } from './repositories/files.repository.js';
import type { EmbeddingsRepository } from './repositories/embeddings.repository.js';
import type { HealthRepository } from './repositories/health.repository.js';
import type { SearchRepository } from './repositories/search.repository.js';
import type { JobsRepository } from './repositories/jobs.repository.js';
import type { QueueRepository } from './repositories/queue.repository.js';
import type { CallLog, CallPriority } from './call-log.js';

/**
 * Everything the service may ask of the database, grouped by repository. Every method is async and takes and
 * returns plain data, so the same object works in-process (PostgreSQL) and across a worker thread (PGlite).
 */
export interface StoreApi {
  health: HealthRepository;
  config: ConfigRepository;
  jobs: JobsRepository;
  files: FilesRepository;
  embeddings: EmbeddingsRepository;
  queue: QueueRepository;
  search: SearchRepository;
}

export type RepositoryName = keyof StoreApi;
/** The names of repository R's methods. */
export type StoreMethod<R extends RepositoryName> = keyof StoreApi[R] & string;
export type StoreArgs<R extends RepositoryName, M extends StoreMethod<R>> = StoreApi[R][M] extends (...args: infer A) => unknown ? A : never;
export type StoreResult<R extends RepositoryName, M extends StoreMethod<R>> = StoreApi[R][M] extends (...args: never[]) => infer T ? Awaited<T> : never;

/**
 * Every repository method, with its priority on the embedded engine (call-gate.ts): what a client on another thread
 * forwards (store/worker-client.ts) and what the store worker dispatches to. Interactive calls are the ones a person
 * waits for (searches, the API's reads and edits); background calls are the indexing side's (file writes, scans,
 * queue persistence, index upkeep). `satisfies` makes a method missing here (or misspelt) a compile error.
 */
const I = 'interactive';
const B = 'background';
const METHODS = {
  health: { ping: I },
  config: { load: I, save: I, remove: I },
  jobs: { countActive: I, list: I, get: I, create: I, remove: I, setLastScan: B },
  files: {
    known: B, knownUnderPage: B, saveIndexed: B, saveFailed: B, saveExcluded: B, excluded: I, touch: B, contentKeys: B, findByHash: B, saveCopy: B,
    move: B, removePaths: B, removeUnder: B, listPaths: I, get: I, content: I, stats: I,
  },
  embeddings: { stale: B, countStale: I, countByModel: I, chunkSummary: I, source: B, replace: B, copy: B },
  queue: { loadAll: B, upsert: B, remove: B },
  search: { candidates: I, keyword: I, semantic: I, describe: I, lexemes: I, facts: I, corrections: I, sealKeywords: B, maintainVectors: B, unpackedVectors: B, unsealedKeywords: B, continueKeywords: B, pendingKeywords: B, compactKeywords: B, analyze: B },
} as const satisfies { [R in RepositoryName]: Record<StoreMethod<R>, CallPriority> };

/** The method names of a repository. */
export function storeMethods<R extends RepositoryName>(repository: R): StoreMethod<R>[] {
  return Object.keys(METHODS[repository]) as StoreMethod<R>[];
}

/** The priority of a call on the embedded engine. */
export function callPriority<R extends RepositoryName>(repository: R, method: StoreMethod<R>): CallPriority {
  return (METHODS[repository] as Record<string, CallPriority>)[method]!;
}

export const REPOSITORY_NAMES = Object.keys(METHODS) as RepositoryName[];

/** `api` with every call's own time kept in `log` (the engine whose calls run side by side: no gate, no waits). */
export function timeCalls(api: StoreApi, log: CallLog): StoreApi {
  const timed = (repository: RepositoryName): unknown => {
    const repo = api[repository] as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    return Object.fromEntries(
      storeMethods(repository).map((method) => [
        method,
        async (...args: unknown[]) => {
          const started = performance.now();
          try {
            return await repo[method]!(...args);
          } finally {
            log.ran(`${repository}.${method}`, callPriority(repository, method), performance.now() - started);
          }
        },
      ]),
    );
  };
  // Built by name from the store's own method list: each entry has its method's signature.
  return Object.fromEntries(REPOSITORY_NAMES.map((r) => [r, timed(r)])) as unknown as StoreApi;
}
