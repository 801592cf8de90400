import type { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { Limiter } from '../lib/limiter.js';
import { workerPath } from '../paths.js';
import { holdBuiltin, type BuiltinHold } from './embedders/builtin-memory.js';
import { describeEmbedder } from './embedders/index.js';
import type { SharedStaticTable } from './embedders/static-table.js';
import type { EmbedderInfo } from './embedders/types.js';
import type { EmbedderSource, EmbedResult, EmbedTask, EnrichResult, EnrichTask, PipelineTask, PipelineWorkerData, PrepareTask, ProbeTask, SharedWords, TaskResult } from './task.js';
import { ThreadPacer, type ThreadPacerOptions } from './thread-pacer.js';
import type { ParseOutcome } from './types.js';

const ABORTED = { ok: false, code: 'aborted', reason: 'cancelled' } as const;

/** The message a piscina thread posts once its task module is loaded (piscina's common.READY). */
const PISCINA_READY = '_WORKER_READY';

/** Where the threads load their embedder from. */
export type EmbedderLocation = Omit<EmbedderSource, 'generation'>;

/**
 * Each pipeline thread's V8 heap limits. Without them V8 sizes every isolate for the whole machine and lets old
 * space grow far past its live data before it collects. Measured on 1,060 Debian documents, the same run against no
 * limits at load 2–4: peak RSS 1,456 → 1,119 MB at the same CPU (61.1 → 60.9 ms per file). The young generation is
 * set too: with only the old generation limited, V8 derives it from that, and the run peaked 80 MB higher (1,134
 * against 1,054 MB, same CPU). 16 MB rather than 48: one thread over the 1,082-file Debian fifth peaked at 426–430
 * against 449–462 MB of RSS, its heap at 107–111 against 120–143 MB, at the same CPU (README "Memory"); 8 MB peaked
 * higher again (more survivors promoted). A 2,000,000-character text (the default text limit) indexes within 96 MB;
 * a file that needs more than the limit ends as 'out_of_memory' (its thread is replaced), never a crash.
 * The old generation's limit is 1,024 MB, not 384, for how often V8 collects below it, not for room: V8 lets old
 * space grow past its live data by a factor that rises with the limit (~1.35 at 384 MB, ~1.6 at 1,024), and at 384
 * a thread with ~30–60 MB live ran a full collection every ~18 files, half of parsing's CPU (docs/benchmarks/corpus.md,
 * stop 45: the whole Debian corpus 33.5 / 32.3 against 36.0 / 35.2 CPU ms a file, peak RSS +4–8 MB). From 2,048 MB
 * the factor jumps to 4 and the peak rose by ~120 MB (npm run bench:pipeline-heap).
 */
export const PIPELINE_HEAP_LIMITS = { maxOldGenerationSizeMb: 1024, maxYoungGenerationSizeMb: 16 } as const;

/**
 * Files in flight per pipeline thread, in a run and in the queue (callers keep this many per thread). A file is two
 * pipeline tasks (parse, then analyse and embed) with store calls before, between and after them (the write, a
 * duplicate lookup), and on the embedded engine those calls queue behind every write already waiting on the store's
 * one thread: with two files per thread, a thread sat idle while both of its files waited there. Four keep it fed.
 * The 1,082-file fifth of the Debian documentation (`npm run bench:corpus -- DIR --sample 0 --threads N`, two rounds
 * each, load 1.3–2.1), wall seconds until idle: one thread 38.9 / 38.6 with two files, 33.8 / 33.3 with four; two
 * threads 36.2 / 33.3 with two, 34.0 / 30.9 with four; peak RSS within the runs' noise. The texts in flight are the
 * cost (a bounded number, each at most indexing.max_text_chars).
 */
export const IN_FLIGHT_PER_THREAD = 4;

export interface PipelinePoolOptions extends EmbedderLocation {
  threads: number;
  /** Test seam: other heap limits than PIPELINE_HEAP_LIMITS (a small one makes a big file run out). */
  heapLimits?: { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb?: number };
  /** The worker entry (default workers/pipeline.worker.js); tests substitute a misbehaving one. */
  workerFile?: string;
  /** Test seam: how long an idle thread stays (default a minute). */
  idleTimeoutMs?: number;
  /** Test seam: how long a thread idles before it collects its garbage (default: the worker's IDLE_COLLECT_MS). */
  idleCollectMs?: number;
  /** Test seam: the thread pacer's window and the cores it reads (thread-pacer.ts). */
  pace?: Pick<ThreadPacerOptions, 'windowMs' | 'cores' | 'idleMs'>;
  /** Test seam: false works every thread whenever tasks wait (no pacing). */
  pacing?: boolean;
}

/** Why a task did not give a result: the pool carries on either way. */
export type TaskFailure = { ok: false; code: 'timeout' | 'aborted' | 'worker_crashed' | 'out_of_memory' | 'task_error'; reason: string };
export type TaskOutcome<R> = { ok: true; value: R } | TaskFailure;

export interface PoolStats {
  threads: number;
  maxThreads: number;
  /** Threads that may work now, paced by demand between 1 and maxThreads (thread-pacer.ts). */
  threadLimit: number;
  queued: number;
  completed: number;
  utilization: number;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Per-task timeout; the thread running a task past it is terminated and replaced. */
  timeoutMs: number;
}

/**
 * The only module that imports piscina: a pool of up to queue.max_concurrency pipeline threads (by default one
 * fewer than the cores: settings/schema.ts), of which as many work as demand keeps busy (thread-pacer.ts). A task
 * that throws, exceeds its timeout (its thread is terminated) or kills its thread comes back as a TaskFailure value.
 */
export class PipelinePool {
  #pool: Piscina;
  /** Pools replaced by resize, finishing their tasks. */
  readonly #draining = new Set<Piscina>();
  /**
   * One task per working thread is handed to piscina at a time, so a task's timeout counts its run, not its wait;
   * the pacer sets how many threads work (the rest idle out after idleTimeout).
   */
  readonly #admission: Limiter;
  readonly #pacer: ThreadPacer;
  /** Ticks the pacer while tasks run or wait (a long task with others waiting changes no count). */
  #paceTimer: NodeJS.Timeout | undefined;
  /** Per thread, resolves once it has loaded its module (or exited): see #untilLoaded. */
  readonly #loading = new WeakMap<Worker, Promise<void>>();
  /** Bumped by useEmbedder: the same folder may hold another model after a pull, so the path alone is no key. */
  #generation = 0;
  /** The built-in embedder's shared memory, held while threads may use it (undefined: not held). */
  #builtin: BuiltinHold | undefined;
  /** Whether this generation's embedder is the built-in one (undefined: not asked yet). */
  #static: boolean | undefined;

  constructor(private options: PipelinePoolOptions) {
    if (!Number.isInteger(options.threads) || options.threads < 1) {
      throw new TypeError('options.threads must be a positive integer');
    }
    this.#pool = this.#create(options);
    this.#pacer = new ThreadPacer({ max: options.threads, ...options.pace });
    this.#admission = new Limiter(options.pacing === false ? options.threads : this.#pacer.limit);
  }

  /** Tells the pacer the current counts and applies the limit it answers. */
  #pace(): void {
    if (this.options.pacing === false) return;
    const limit = this.#pacer.observe(this.#admission.running, this.#admission.waiting);
    if (limit !== this.#admission.size) this.#admission.setLimit(limit);
    const busy = this.#admission.running + this.#admission.waiting > 0;
    if (busy && this.#paceTimer === undefined) {
      this.#paceTimer = setInterval(() => this.#pace(), this.#pacer.windowMs);
      this.#paceTimer.unref();
    } else if (!busy && this.#paceTimer !== undefined) {
      clearInterval(this.#paceTimer);
      this.#paceTimer = undefined;
    }
  }

  /** Takes an admission slot (false: cancelled first), the pacer told of the wait and of the start. */
  async #admit(signal: AbortSignal | undefined): Promise<boolean> {
    const admitting = this.#admission.acquire(signal);
    this.#pace();
    const admitted = await admitting;
    if (admitted) this.#pace();
    return admitted;
  }

  #release(): void {
    this.#admission.release();
    this.#pace();
  }

  #create(options: PipelinePoolOptions): Piscina {
    const pool = new Piscina({
      filename: options.workerFile ?? workerPath('pipeline.worker'),
      // Threads start with the first task: a restart with nothing to index starts none (each costs ~1.5 CPU-s
      // of module and model loading); they stay a minute after their last task.
      minThreads: 0,
      maxThreads: options.threads,
      idleTimeout: options.idleTimeoutMs ?? 60_000,
      resourceLimits: options.heapLimits ?? PIPELINE_HEAP_LIMITS,
      // An idle thread waits on its port, not in Atomics.wait, so its timers run (its collection when idle:
      // workers/pipeline.worker.ts). Same CPU either way (docs/benchmarks/memory.md, stop 48).
      atomics: 'disabled',
      workerData: { idleCollectMs: options.idleCollectMs } satisfies PipelineWorkerData,
    });
    this.#trackLoading(pool);
    // The shared vocabulary and table go once the last thread has: an idle service does not keep them.
    pool.on('workerDestroy', () => setImmediate(() => this.#threadCount() === 0 && this.#releaseBuiltin()));
    return pool;
  }

  #threadCount(): number {
    let threads = this.#pool.threads.length;
    for (const pool of this.#draining) threads += pool.threads.length;
    return threads;
  }

  /**
   * The built-in vocabulary's index (~11 MB: the embedder's tokenizer and the keyword rarity look words up in it),
   * read here once and sent with every enrich and embed task, so the threads share one copy instead of each
   * building its own (README "Memory"). Null when the file cannot be read: each thread then reports that itself.
   */
  #sharedWords(): SharedWords | null {
    return (this.#builtin ??= holdBuiltin(this.options.builtinDir)).words();
  }

  /**
   * The built-in embedder's table (~35 MB), read here once and sent with the tasks that embed while it is the
   * embedder, so every thread computes from one copy (README "Memory"); null while a transformer is the embedder.
   */
  #sharedTable(): SharedStaticTable | null {
    if (this.#static === undefined) {
      const which = describeEmbedder({ modelDir: this.options.modelDir ?? undefined, builtinDir: this.options.builtinDir });
      this.#static = which.ok && which.kind === 'static';
    }
    return this.#static ? (this.#builtin ??= holdBuiltin(this.options.builtinDir)).table() : null;
  }

  #releaseBuiltin(): void {
    this.#builtin?.release();
    this.#builtin = undefined;
  }

  /**
   * Notes each new thread's loading. Node 20 aborts the whole process (V8: "IsGraphAsync must be used on an
   * instantiated module") when a worker is terminated while its ES modules are still being instantiated, which
   * a service stopped right after it started would do; so the threads are only terminated once loaded.
   * Called synchronously after whatever may have spawned a thread, before its first message can arrive.
   */
  #trackLoading(pool: Piscina): void {
    for (const thread of pool.threads) {
      if (this.#loading.has(thread)) continue;
      this.#loading.set(
        thread,
        new Promise<void>((resolve) => {
          const done = () => {
            thread.off('message', onMessage);
            thread.off('exit', done);
            thread.off('error', done);
            resolve();
          };
          const onMessage = (message: unknown) => {
            if (typeof message === 'object' && message !== null && PISCINA_READY in message) done();
          };
          thread.on('message', onMessage);
          thread.once('exit', done);
          thread.once('error', done);
        }),
      );
    }
  }

  /** Resolves when every thread of `pool` has loaded (bounded: a thread stuck loading is terminated anyway). */
  async #untilLoaded(pool: Piscina, timeoutMs = 10_000): Promise<void> {
    const loading = pool.threads.map((t) => this.#loading.get(t)).filter((p): p is Promise<void> => p !== undefined);
    if (loading.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.all(loading), timeout]);
    clearTimeout(timer);
  }

  prepare(task: Omit<PrepareTask, 'kind'>, options: RunOptions): Promise<TaskOutcome<ParseOutcome>> {
    return this.#run<PrepareTask>({ kind: 'prepare', ...task }, options);
  }

  enrich(task: Omit<EnrichTask, 'kind' | 'embedder' | 'words' | 'table'>, options: RunOptions): Promise<TaskOutcome<EnrichResult>> {
    const table = task.embed ? this.#sharedTable() : null;
    return this.#run<EnrichTask>({ kind: 'enrich', ...task, embedder: this.#embedderSource(), words: this.#sharedWords(), table }, options);
  }

  /** Re-embeds stored text (a model change): chunk + embed, no parsing or analysis. */
  embed(task: Omit<EmbedTask, 'kind' | 'embedder' | 'words' | 'table'>, options: RunOptions): Promise<TaskOutcome<EmbedResult>> {
    return this.#run<EmbedTask>({ kind: 'embed', ...task, embedder: this.#embedderSource(), words: this.#sharedWords(), table: this.#sharedTable() }, options);
  }

  /** Loads the embedder in a thread and answers what it is (or, as a task_error, why it cannot load). */
  probe(options: RunOptions): Promise<TaskOutcome<EmbedderInfo>> {
    return this.#run<ProbeTask>({ kind: 'probe', embedder: this.#embedderSource(), table: this.#sharedTable() }, options);
  }

  /**
   * Cancellation (options.signal) answers 'aborted' at once, whether the task waits for admission (behind a task
   * that hangs, it would wait for that one's timeout) or runs. A running task's thread is never terminated: a
   * thread cut while onnxruntime runs native code takes the whole process down (std::terminate). The task runs to
   * its end, holding its admission slot, and its result is dropped. Only the timeout (a task that hangs) terminates
   * a thread.
   */
  async #run<T extends PipelineTask>(task: T, options: RunOptions): Promise<TaskOutcome<TaskResult<T>>> {
    const { signal } = options;
    if (!(await this.#admit(signal))) {
      this.#pace(); // an abort left the line
      return ABORTED;
    }
    if (signal?.aborted) {
      this.#release();
      return ABORTED;
    }
    const running = this.#runAdmitted(task, options.timeoutMs).finally(() => this.#release());
    if (!signal) return running;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<TaskOutcome<TaskResult<T>>>((resolve) => {
      onAbort = () => resolve(ABORTED);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      return await Promise.race([running, aborted]);
    } finally {
      signal.removeEventListener('abort', onAbort!);
    }
  }

  async #runAdmitted<T extends PipelineTask>(task: T, timeoutMs: number): Promise<TaskOutcome<TaskResult<T>>> {
    const timeout = AbortSignal.timeout(timeoutMs);
    try {
      const running: Promise<TaskResult<T>> = this.#pool.run(task, { signal: timeout }); // workers/pipeline.worker.ts answers TaskResult<T>
      this.#trackLoading(this.#pool); // run() may have started a thread
      return { ok: true, value: await running };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (timeout.aborted) {
        return { ok: false, code: 'timeout', reason: `processing took longer than ${Math.round(timeoutMs / 1000)} s and was stopped` };
      }
      if ((err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        const limit = (this.options.heapLimits ?? PIPELINE_HEAP_LIMITS).maxOldGenerationSizeMb;
        return { ok: false, code: 'out_of_memory', reason: `processing this file needed more than the ${limit} MB a pipeline thread may use; its thread was replaced` };
      }
      if (/worker (exited|terminated)|terminated|exit code/i.test(message)) {
        return { ok: false, code: 'worker_crashed', reason: `the worker thread died while processing this file (${message})` };
      }
      return { ok: false, code: 'task_error', reason: message };
    }
  }

  /** Applies a new thread count (queue.max_concurrency) live: a fresh pool takes new tasks, the old one drains. */
  async resize(threads: number): Promise<void> {
    if (threads === this.#pool.maxThreads) return;
    const old = this.#pool;
    this.options = { ...this.options, threads };
    this.#pool = this.#create(this.options);
    this.#pacer.setMax(threads);
    this.#admission.setLimit(this.options.pacing === false ? threads : this.#pacer.limit);
    await this.#retire(old);
  }

  async #retire(old: Piscina): Promise<void> {
    this.#draining.add(old);
    try {
      await this.#untilLoaded(old);
      await old.close();
    } finally {
      this.#draining.delete(old);
    }
  }

  /**
   * Switches to another embedder (a model change): every task from now on names it, and each thread loads it
   * when its next such task arrives (closing the previous one). Tasks already handed out finish with the model
   * they started with; their results say which model made them. No thread is restarted.
   */
  useEmbedder(location: EmbedderLocation): void {
    this.options = { ...this.options, modelDir: location.modelDir, builtinDir: location.builtinDir };
    this.#generation += 1;
    this.#static = undefined;
    // Threads still using the old copies keep them; the next task takes (or reads) the current build's.
    this.#releaseBuiltin();
  }

  /** What the threads load their embedder from. */
  get embedderLocation(): EmbedderLocation {
    return { modelDir: this.options.modelDir, builtinDir: this.options.builtinDir };
  }

  #embedderSource(): EmbedderSource {
    return { ...this.embedderLocation, generation: this.#generation };
  }

  stats(): PoolStats {
    return {
      threads: this.#pool.threads.length,
      maxThreads: this.#pool.maxThreads,
      threadLimit: this.#admission.size,
      queued: this.#admission.waiting,
      completed: this.#pool.completed,
      utilization: Math.round(this.#pool.utilization * 1000) / 1000,
    };
  }

  /** The running threads (diagnostics and tests). */
  workers(): Worker[] {
    return [...this.#pool.threads];
  }

  /**
   * Finishes the tasks handed out (cancelled runs hand out no more), then stops the threads: the service's
   * shutdown (threads still busy after `graceMs` are terminated). Terminating a thread mid-task could cut onnxruntime's native code, which aborts the process.
   */
  async close(graceMs = 15_000): Promise<void> {
    clearInterval(this.#paceTimer);
    this.#paceTimer = undefined;
    const pools = [this.#pool, ...this.#draining];
    let timer: NodeJS.Timeout | undefined;
    const graceful = Promise.all(
      pools.map(async (p) => {
        await this.#untilLoaded(p);
        await p.close();
      }),
    ).then(() => true);
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)));
    const closed = await Promise.race([graceful, late]);
    clearTimeout(timer);
    // A task still running after the grace period hangs: stop its thread.
    if (!closed) await Promise.all(pools.map((p) => p.destroy()));
    this.#releaseBuiltin();
  }

  /** Stops without waiting for tasks (those in flight fail); threads still loading are let finish first. */
  async destroy(): Promise<void> {
    clearInterval(this.#paceTimer);
    this.#paceTimer = undefined;
    await Promise.all(
      [this.#pool, ...this.#draining].map(async (p) => {
        await this.#untilLoaded(p);
        await p.destroy();
      }),
    );
    this.#releaseBuiltin();
  }
}
