import { Worker } from 'node:worker_threads';
import { releaseProxy, wrap, type Remote } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { workerPath } from '../paths.js';
import { IdleTimer } from '../lib/idle-timer.js';
import type { Snippet } from './snippet.js';

/** What a result's snippet is cut from: its text, or its summary when the text has no words (e.g. an image). */
export interface SnippetSource {
  text: string;
  summary: string;
}

export interface SnippetWorkerApi {
  snippets(sources: SnippetSource[], lexemes: string[]): Snippet[];
  highlight(text: string, lexemes: string[]): [number, number][];
  /** Blocks the thread until `gate[0]` is not 0 (tests: answers wait on it while the main thread serves). */
  hold(gate: Int32Array): void;
  /** Ends the thread at once, as a crash would (tests). */
  exit(code: number): void;
}

/** One thread of the lane: its worker, the proxy to it, and what its end rejects. */
interface LaneThread {
  worker: Worker;
  remote: Remote<SnippetWorkerApi>;
  alive: boolean;
  /** Why it ended (null while alive). */
  endedBy: Error | null;
  /** The rejections of the calls waiting on it, each removed as its call settles. */
  waiting: Set<(err: Error) => void>;
}

/**
 * The snippet thread ends after this long without a call, as the query embedder's (models/query-lanes.ts: the
 * two threads' end measured together, 536 → 458 MB RSS); the next call starts it again.
 */
export const SNIPPET_LANE_IDLE_MS = 5 * 60_000;

function startThread(): LaneThread {
  const worker = new Worker(workerPath('snippet.worker'));
  worker.unref();
  const thread: LaneThread = { worker, remote: wrap<SnippetWorkerApi>(nodeEndpoint(worker)), alive: true, endedBy: null, waiting: new Set() };
  const end = (err: Error): void => {
    if (!thread.alive) return;
    thread.alive = false;
    thread.endedBy = err;
    for (const reject of thread.waiting) reject(err);
    thread.waiting.clear();
  };
  worker.once('error', end);
  worker.once('exit', (code) => end(new Error(`the snippet thread ended (exit code ${code})`)));
  return thread;
}

/**
 * `call`'s answer, or a rejection when the thread ends first. Not Promise.race with a promise of the thread's
 * life: each race left a reaction on that promise holding its answer until the thread ended, so every snippet of
 * every search stayed in memory while searches came more often than SNIPPET_LANE_IDLE_MS (20,084 results after
 * ~400 searches during a bulk run, a search a second).
 */
function untilEnded<T>(thread: LaneThread, call: Promise<T>): Promise<T> {
  if (!thread.alive) {
    call.catch(() => undefined);
    return Promise.reject(thread.endedBy ?? new Error('the snippet thread ended'));
  }
  return new Promise<T>((resolve, reject) => {
    thread.waiting.add(reject);
    call.then(resolve, reject).finally(() => thread.waiting.delete(reject));
  });
}

/**
 * Cuts result snippets and preview highlights on a thread of its own (issue 16): the work grows with the text of
 * the results (20,000 characters each, 50 results a page; a preview page up to 500,000), and on the main thread
 * it would delay every other request. One dedicated thread, not the pipeline pool: its threads spend seconds on
 * a file while indexing, and a search must not wait behind them (as the query embedder's lane).
 */
export class SnippetLane {
  /**
   * The running thread, started by the first call (a start with no search starts none); a thread that ended (a
   * crash, or SNIPPET_LANE_IDLE_MS without a call) is replaced by the next call.
   */
  #thread: LaneThread | null = null;
  #closed = false;
  #waiting = 0;
  /** Ends the thread once no call has come for idleMs (it answered calls: its modules are loaded). */
  readonly #idle: IdleTimer;

  private constructor(idleMs: number) {
    this.#idle = new IdleTimer(idleMs, () => {
      const thread = this.#thread;
      if (this.#closed || this.#waiting > 0 || !thread?.alive) return;
      this.#thread = null;
      thread.remote[releaseProxy]();
      void thread.worker.terminate();
    });
  }

  /** `idleMs`: how long the thread is kept after its last call (default SNIPPET_LANE_IDLE_MS). */
  static start(idleMs = SNIPPET_LANE_IDLE_MS): SnippetLane {
    return new SnippetLane(idleMs);
  }

  #starts = 0;

  /** Whether the thread is started (tests). */
  get started(): boolean {
    return this.#thread !== null;
  }

  /** How many threads the lane has started so far (tests). */
  get starts(): number {
    return this.#starts;
  }

  #startThread(): LaneThread {
    this.#starts++;
    return startThread();
  }

  snippets(sources: SnippetSource[], lexemes: readonly string[]): Promise<Snippet[]> {
    return this.#call((remote) => remote.snippets(sources, [...lexemes]));
  }

  highlight(text: string, lexemes: readonly string[]): Promise<[number, number][]> {
    return this.#call((remote) => remote.highlight(text, [...lexemes]));
  }

  /** Holds the thread until the returned function is called (tests). */
  async hold(): Promise<() => void> {
    const gate = new Int32Array(new SharedArrayBuffer(4));
    void this.#call((remote) => remote.hold(gate)).catch(() => undefined);
    return () => {
      Atomics.store(gate, 0, 1);
      Atomics.notify(gate, 0);
    };
  }

  /** Ends the thread as a crash would; calls sent after this one are made again on a new thread (tests). */
  async crash(): Promise<void> {
    await this.#call((remote) => remote.exit(1), false).catch(() => undefined);
  }

  /** Calls sent to the thread and not answered yet. */
  get waiting(): number {
    return this.#waiting;
  }

  /** A call the thread ended under (it crashed) is made once more, on a new thread: it never waits for ever. */
  async #call<T>(send: (remote: Remote<SnippetWorkerApi>) => Promise<T>, retry = true): Promise<T> {
    if (this.#closed) throw new Error('the snippet lane is closed');
    this.#idle.cancel();
    const thread = (this.#thread ??= this.#startThread());
    this.#waiting++;
    try {
      return await untilEnded(thread, send(thread.remote));
    } catch (err) {
      if (thread.alive || !retry || this.#closed) throw err;
      if (this.#thread === thread) this.#thread = this.#startThread();
      return this.#call(send, false);
    } finally {
      this.#waiting--;
      if (this.#waiting === 0) this.#idle.arm();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#idle.cancel();
    if (this.#thread === null) {
      this.#closed = true;
      return;
    }
    // Node 20 aborts the process when a thread is terminated while its ES modules are being instantiated (see
    // pipeline/pool.ts): a lane closed right after it started first waits for the thread to answer.
    await this.#call((remote) => remote.highlight('', [])).catch(() => undefined);
    this.#closed = true;
    const { worker, remote } = this.#thread!;
    remote[releaseProxy]();
    await worker.terminate();
  }
}
