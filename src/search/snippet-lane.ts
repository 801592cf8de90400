import { Worker } from 'node:worker_threads';
import { releaseProxy, wrap, type Remote } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { workerPath } from '../paths.js';
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
}

/**
 * Cuts result snippets and preview highlights on a thread of its own (issue 16): the work grows with the text of
 * the results (20,000 characters each, 50 results a page; a preview page up to 500,000), and on the main thread
 * it would delay every other request. One dedicated thread, not the pipeline pool: its threads spend seconds on
 * a file while indexing, and a search must not wait behind them (as the query embedder's lane).
 */
export class SnippetLane {
  /** Settles (rejects) when the thread ends: a call then fails instead of waiting for ever. */
  readonly #ended: Promise<never>;
  #waiting = 0;

  private constructor(
    private readonly worker: Worker,
    private readonly remote: Remote<SnippetWorkerApi>,
  ) {
    this.#ended = new Promise<never>((_resolve, reject) => {
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the snippet thread ended (exit code ${code})`)));
    });
    this.#ended.catch(() => undefined);
  }

  static start(): SnippetLane {
    const worker = new Worker(workerPath('snippet.worker'));
    worker.unref();
    return new SnippetLane(worker, wrap<SnippetWorkerApi>(nodeEndpoint(worker)));
  }

  snippets(sources: SnippetSource[], lexemes: readonly string[]): Promise<Snippet[]> {
    return this.#call(this.remote.snippets(sources, [...lexemes]));
  }

  highlight(text: string, lexemes: readonly string[]): Promise<[number, number][]> {
    return this.#call(this.remote.highlight(text, [...lexemes]));
  }

  /** Holds the thread until the returned function is called (tests). */
  async hold(): Promise<() => void> {
    const gate = new Int32Array(new SharedArrayBuffer(4));
    void this.#call(this.remote.hold(gate)).catch(() => undefined);
    return () => {
      Atomics.store(gate, 0, 1);
      Atomics.notify(gate, 0);
    };
  }

  /** Calls sent to the thread and not answered yet. */
  get waiting(): number {
    return this.#waiting;
  }

  async #call<T>(pending: Promise<T>): Promise<T> {
    this.#waiting++;
    try {
      return await Promise.race([pending, this.#ended]);
    } finally {
      this.#waiting--;
    }
  }

  async close(): Promise<void> {
    // Node 20 aborts the process when a thread is terminated while its ES modules are being instantiated (see
    // pipeline/pool.ts): a lane closed right after it started first waits for the thread to answer.
    await this.#call(this.remote.highlight('', [])).catch(() => undefined);
    this.remote[releaseProxy]();
    await this.worker.terminate();
  }
}
