/**
 * Owns the choice of the active embedder while the service runs. At start and whenever the model folder
 * changes (a pull finished, the files were added or removed) it re-resolves the embedder; on a change it
 * points the pipeline threads at the new model (PipelinePool.useEmbedder), checks that a transformer really
 * loads (a probe task: its real dimension, or a fallback to the built-in embedder with the reason), publishes
 * `embedder_changed` and calls onChange (ModelService starts a background re-embed there).
 */
import type { ServiceConfig } from '../config.js';
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../logger.js';
import type { PipelinePool } from '../pipeline/pool.js';
import { modelStamp, resolveEmbedder, type ActiveEmbedder } from './resolve.js';

export interface EmbedderManagerDeps {
  config: Pick<ServiceConfig, 'modelDir' | 'dataDir' | 'model'>;
  pool: PipelinePool;
  bus: EventBus;
  logger: Logger;
  /** The active embedder changed, or start() found the starting one: files of other models need re-embedding. */
  onChange: (active: ActiveEmbedder) => Promise<unknown>;
  /** How long loading a model may take in the probe (default 120 s). */
  probeTimeoutMs?: number;
}

interface LoadFailure {
  dir: string;
  /** model.onnx's size and mtime when it failed: a replaced file is tried again. */
  stamp: string;
  reason: string;
}

export class EmbedderManager {
  #active: ActiveEmbedder;
  /** Whether the active embedder is known to load (the built-in one is taken to; a transformer is probed). */
  #verified: boolean;
  #loadFailure: LoadFailure | null = null;
  /** verify/refresh calls, one after the other. */
  #queue: Promise<unknown> = Promise.resolve();
  #timer: NodeJS.Timeout | null = null;
  #closed = false;

  /** `initial` is what the pool was started with. */
  constructor(
    private readonly deps: EmbedderManagerDeps,
    initial: ActiveEmbedder,
  ) {
    this.#active = initial;
    this.#verified = !(initial.description.ok && initial.description.kind === 'transformer');
  }

  get active(): ActiveEmbedder {
    return this.#active;
  }

  /** True once the active embedder is known to load (always for the built-in one). */
  get verified(): boolean {
    return this.#verified;
  }

  /** Checks the starting embedder (a transformer is loaded once in a thread), then calls onChange. */
  start(): Promise<void> {
    return this.#serial(async () => {
      const before = this.#active.identity;
      await this.#verify();
      if (this.#active.identity !== before) this.#announce(before, 'the configured model could not be loaded');
      if (!this.#closed) await this.deps.onChange(this.#active);
    });
  }

  /**
   * Re-reads the model folder; when the embedder it gives differs from the active one, switches to it.
   * Answers whether the active embedder changed.
   */
  refresh(reason: string): Promise<boolean> {
    return this.#serial(async () => {
      const failure = this.#loadFailure;
      if (failure && modelStamp(failure.dir) !== failure.stamp) this.#loadFailure = null; // replaced: try again
      const next = resolveEmbedder(this.deps.config, this.#loadFailure ? { skipTransformer: this.#loadFailure.reason } : {});
      const current = this.#active;
      if (next.identity === current.identity && next.modelDir === current.modelDir) return false;
      const before = current.identity;
      this.#use(next);
      await this.#verify();
      if (this.#active.identity === before && this.#active.modelDir === current.modelDir) return false;
      this.#announce(before, reason);
      if (!this.#closed) await this.deps.onChange(this.#active);
      return true;
    });
  }

  /** Looks at the model folder every intervalMs (a cheap stat; 0 = never), so a model pulled while running is used. */
  watch(intervalMs: number): void {
    if (intervalMs <= 0 || this.#timer) return;
    this.#timer = setInterval(() => {
      this.refresh('the model folder changed').catch((err: unknown) => this.deps.logger.error({ err }, 'model check failed'));
    }, intervalMs);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#queue;
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(fn);
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** Points the pipeline threads at `next` (tasks running on the old model finish with it). */
  #use(next: ActiveEmbedder): void {
    this.#active = next;
    this.#verified = !(next.description.ok && next.description.kind === 'transformer');
    this.deps.pool.useEmbedder({ modelDir: next.modelDir, builtinDir: next.builtinDir });
  }

  /** Loads a transformer once in a pipeline thread; when it cannot load, falls back to the built-in embedder. */
  async #verify(): Promise<void> {
    const active = this.#active;
    if (this.#closed || !active.description.ok || active.description.kind !== 'transformer') return;
    const dir = active.description.dir;
    const probe = await this.deps.pool.probe({ timeoutMs: this.deps.probeTimeoutMs ?? 120_000 });
    if (this.#active !== active) return; // switched meanwhile
    if (probe.ok) {
      const info = probe.value;
      this.#active = { ...active, identity: `${info.kind}:${info.model}`, dimension: info.dimension };
      this.#verified = true;
      return;
    }
    const reason = `the model in ${dir} could not be loaded (${probe.reason})`;
    this.deps.logger.warn({ dir, reason: probe.reason }, 'transformer model unusable: using the built-in embedder');
    this.#loadFailure = { dir, stamp: modelStamp(dir), reason };
    this.#use(resolveEmbedder(this.deps.config, { skipTransformer: reason }));
  }

  #announce(previous: string | null, reason: string): void {
    const { description, dimension } = this.#active;
    this.deps.logger.info({ previous, model: this.#active.identity, reason }, 'the active embedder changed');
    this.deps.bus.publish('embedder_changed', {
      kind: description.ok ? description.kind : null,
      model: description.ok ? description.model : null,
      dimension,
      previous,
      reason,
    });
  }
}
