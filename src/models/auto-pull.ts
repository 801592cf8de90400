/**
 * FILESIFT_MODEL_PULL=auto: downloads the transformer model in the background after start-up (never delaying
 * it), with progress as events and in /api/status/, then asks the embedder manager to switch to it. One attempt
 * per start; a failure is reported (status, event, log) and the built-in embedder stays in use.
 */
import type { EventBus } from '../events/bus.js';
import type { Logger } from '../logger.js';
import type { PullPlan } from './pull-plan.js';
import { pullModel, type PullProgress } from './pull.js';

export interface ModelPullState {
  state: 'downloading' | 'completed' | 'failed';
  model: string;
  dir: string;
  /** The file being fetched (or that failed). */
  file: string | null;
  file_index: number;
  file_count: number;
  received_bytes: number;
  total_bytes: number | null;
  code: string | null;
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

export interface AutoModelPullDeps {
  dir: string;
  plan: PullPlan;
  bus: EventBus;
  logger: Logger;
  /** Called after a successful pull (the service switches to the model). */
  onPulled: () => Promise<unknown>;
  /** Minimum time between progress events (default 1000 ms). */
  progressIntervalMs?: number;
}

export class AutoModelPull {
  #state: ModelPullState;
  readonly #controller = new AbortController();
  #work: Promise<void> | null = null;
  #lastEvent = 0;

  constructor(private readonly deps: AutoModelPullDeps) {
    this.#state = {
      state: 'downloading',
      model: deps.plan.model,
      dir: deps.dir,
      file: null,
      file_index: 0,
      file_count: deps.plan.files.length,
      received_bytes: 0,
      total_bytes: null,
      code: null,
      error: null,
      started_at: new Date().toISOString(),
      finished_at: null,
    };
  }

  get state(): ModelPullState {
    return { ...this.#state };
  }

  /** Starts the download; returns at once. */
  start(): void {
    this.#work ??= this.#run().catch((err: unknown) => {
      this.deps.logger.error({ err }, 'model download failed unexpectedly');
      this.#finish('failed', 'internal', err instanceof Error ? err.message : String(err));
    });
  }

  /** Resolves when the download (and the switch to the model) is over. */
  settled(): Promise<void> {
    return this.#work ?? Promise.resolve();
  }

  /** Cancels a download in flight (its partial file is removed) and waits for it to wind down. */
  async stop(): Promise<void> {
    this.#controller.abort();
    await this.settled();
  }

  async #run(): Promise<void> {
    const { plan, dir, logger } = this.deps;
    logger.info({ model: plan.model, dir, from: plan.baseUrl }, 'downloading the embedding model in the background');
    const result = await pullModel({
      baseUrl: plan.baseUrl,
      destDir: dir,
      files: plan.files,
      ...(plan.card ? { card: plan.card } : {}),
      signal: this.#controller.signal,
      onProgress: (p) => this.#progress(p),
    });
    if (!result.ok) {
      logger.warn({ model: plan.model, code: result.code, reason: result.reason }, 'model download failed: the built-in embedder stays in use');
      this.#finish('failed', result.code, result.reason);
      return;
    }
    logger.info({ model: plan.model, dir }, 'model downloaded');
    this.#finish('completed', null, null);
    await this.deps.onPulled();
  }

  #progress(p: PullProgress): void {
    const fileChanged = this.#state.file !== p.file;
    Object.assign(this.#state, {
      file: p.file,
      file_index: p.fileIndex,
      file_count: p.fileCount,
      received_bytes: p.received,
      total_bytes: p.total ?? null,
    });
    const now = Date.now();
    if (!fileChanged && p.phase === 'downloading' && now - this.#lastEvent < (this.deps.progressIntervalMs ?? 1000)) return;
    this.#lastEvent = now;
    this.deps.bus.publish('model_pull_progress', {
      model: this.#state.model,
      file: p.file,
      file_index: p.fileIndex,
      file_count: p.fileCount,
      received_bytes: p.received,
      total_bytes: p.total ?? null,
    });
  }

  #finish(state: 'completed' | 'failed', code: string | null, error: string | null): void {
    Object.assign(this.#state, { state, code, error, finished_at: new Date().toISOString() });
    this.deps.bus.publish('model_pull_completed', { model: this.#state.model, ok: state === 'completed', dir: this.deps.dir, code, error });
  }
}
