import { Worker } from 'node:worker_threads';
import { releaseProxy, wrap, type Remote } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { holdBuiltin, type BuiltinHold, type SharedWords } from '../pipeline/embedders/builtin-memory.js';
import { describeEmbedder } from '../pipeline/embedders/index.js';
import type { SharedStaticTable } from '../pipeline/embedders/static-table.js';
import type { EmbedderInfo } from '../pipeline/embedders/types.js';
import { workerPath } from '../paths.js';

/** Where the lane loads its embedder from. */
export interface QueryEmbedderLocation {
  modelDir: string | null;
  builtinDir: string;
}

export interface QueryEmbedderData extends QueryEmbedderLocation {
  /** The built-in embedder's vocabulary index and table, the process's copies (null: a transformer, or unreadable). */
  words: SharedWords | null;
  table: SharedStaticTable | null;
}

export interface QueryEmbedderWorkerApi {
  load(): Promise<EmbedderInfo>;
  embed(text: string): Promise<Float32Array>;
  close(): Promise<void>;
}

const CACHE_SIZE = 256;

/**
 * Embeds search queries on a lane of their own (one dedicated thread), with a small LRU cache: users repeat
 * queries, and a query typed as-you-go is often asked twice. Failure to load leaves search keyword-only.
 */
export class QueryEmbedder {
  readonly #cache = new Map<string, Float32Array>();
  /** Queries being embedded: close() waits for them (a lane retired by a model change still answers them). */
  readonly #inFlight = new Set<Promise<unknown>>();

  private constructor(
    private readonly worker: Worker,
    private readonly remote: Remote<QueryEmbedderWorkerApi>,
    readonly info: EmbedderInfo,
    private readonly builtin: BuiltinHold | null,
  ) {}

  static async start(location: QueryEmbedderLocation): Promise<QueryEmbedder> {
    const which = describeEmbedder({ modelDir: location.modelDir ?? undefined, builtinDir: location.builtinDir });
    // The built-in embedder computes from the process's one table and vocabulary index, the pipeline threads' too.
    const builtin = which.ok && which.kind === 'static' ? holdBuiltin(location.builtinDir) : null;
    const data: QueryEmbedderData = { ...location, words: builtin?.words() ?? null, table: builtin?.table() ?? null };
    const worker = new Worker(workerPath('query-embedder.worker'), { workerData: data });
    const remote = wrap<QueryEmbedderWorkerApi>(nodeEndpoint(worker));
    try {
      const info = await remote.load();
      worker.unref();
      return new QueryEmbedder(worker, remote, info, builtin);
    } catch (err) {
      remote[releaseProxy]();
      await worker.terminate();
      builtin?.release();
      throw err;
    }
  }

  /** Identity stored with chunks made by the same model ('kind:model'). */
  get identity(): string {
    return `${this.info.kind}:${this.info.model}`;
  }

  async embed(text: string): Promise<Float32Array> {
    const key = text.trim();
    const cached = this.#cache.get(key);
    if (cached) {
      this.#cache.delete(key);
      this.#cache.set(key, cached);
      return cached;
    }
    const pending = this.remote.embed(key);
    this.#inFlight.add(pending);
    let vector: Float32Array;
    try {
      vector = await pending;
    } finally {
      this.#inFlight.delete(pending);
    }
    this.#cache.set(key, vector);
    if (this.#cache.size > CACHE_SIZE) this.#cache.delete(this.#cache.keys().next().value!);
    return vector;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.#inFlight]);
    try {
      await this.remote.close();
    } finally {
      this.remote[releaseProxy]();
      await this.worker.terminate();
      this.builtin?.release();
    }
  }
}
