import type { Worker } from 'node:worker_threads';
import { releaseProxy } from 'comlink';
import type { Logger } from '../logger.js';
import { wallClock } from './call-gate.js';
import type { CallFigures } from './call-log.js';
import { REPOSITORY_NAMES, storeMethods, type RepositoryName, type StoreApi, type StoreArgs, type StoreMethod, type StoreResult } from './api.js';
import type { StoreWorkerApi, StoreWorkerData } from './protocol.js';
import { openStoreThread, StoreUnavailableError, type StoreThread as Running } from './thread.js';

export { StoreUnavailableError };

/**
 * The main-thread side of the PGlite store worker. It mirrors the StoreApi shape with plain async functions, so
 * callers never see comlink. If the worker dies (a WASM abort, out of memory), calls in flight fail with
 * StoreUnavailableError instead of hanging, and the worker is restarted on the same data directory.
 */
export class WorkerStoreClient {
  readonly api: StoreApi;
  #running: Promise<Running>;
  #current: Running | null = null;
  #pending = new Set<(err: Error) => void>();
  #closing = false;
  #restarts = 0;

  private constructor(
    private readonly data: StoreWorkerData,
    private readonly logger: Logger,
    first: Running,
  ) {
    this.#running = Promise.resolve(first);
    this.#watch(first);
    this.api = Object.fromEntries(REPOSITORY_NAMES.map((r) => [r, this.#forward(r)])) as unknown as StoreApi;
  }

  /** `started`: the thread already started with `data` (openStoreThread), e.g. before the service's modules loaded. */
  static async start(data: StoreWorkerData, logger: Logger, started?: Promise<Running>): Promise<WorkerStoreClient> {
    return new WorkerStoreClient(data, logger, await (started ?? openStoreThread(data)));
  }

  get restarts(): number {
    return this.#restarts;
  }

  /** The thread running the database right now (null while it restarts): for diagnostics and tests. */
  get worker(): Worker | null {
    return this.#current?.worker ?? null;
  }

  #watch(running: Running): void {
    this.#current = running;
    running.worker.once('exit', (code) => {
      if (this.#closing) return;
      const error = new StoreUnavailableError(`embedded database worker stopped unexpectedly (exit code ${code})`);
      this.logger.error({ code }, 'store worker died; restarting it');
      this.#current = null;
      for (const reject of this.#pending) reject(error);
      this.#pending.clear();
      running.remote[releaseProxy]();
      this.#restarts++;
      this.#running = openStoreThread(this.data).then((next) => {
        this.#watch(next);
        return next;
      });
      this.#running.catch((err: unknown) => this.logger.fatal({ err }, 'store worker could not be restarted'));
    });
  }

  /** Repository `repository` as plain async functions that forward each call to the worker. */
  #forward<R extends RepositoryName>(repository: R): StoreApi[R] {
    const methods = storeMethods(repository).map((method) => [method, (...args: StoreArgs<R, typeof method>) => this.#call(repository, method, args)]);
    // Built by name from the store's own method list (store.ts): each entry has its method's signature.
    return Object.fromEntries(methods) as StoreApi[R];
  }

  async #call<R extends RepositoryName, M extends StoreMethod<R>>(repository: R, method: M, args: StoreArgs<R, M>): Promise<StoreResult<R, M>> {
    if (this.#closing) throw new StoreUnavailableError('store is closed');
    const running = await this.#running;
    // comlink's Remote<> cannot carry call's generic parameters; the protocol's signature is the contract.
    const call = running.remote.call as unknown as StoreWorkerApi['call'];
    return new Promise((resolve, reject) => {
      this.#pending.add(reject);
      call(repository, method, args, wallClock())
        .then(resolve, reject)
        .finally(() => this.#pending.delete(reject));
    });
  }

  /** What the store's calls cost so far (call-log.ts); a restarted thread starts again from nothing. */
  async calls(): Promise<CallFigures> {
    return (await this.#running).remote.calls();
  }

  /** Lets calls in flight finish (in-flight writes complete), then closes the database and stops the worker. */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    const running = await this.#running.catch(() => null);
    const inFlight = [...this.#pending].length;
    if (inFlight > 0) await waitUntil(() => this.#pending.size === 0, 10_000);
    if (!running) return;
    try {
      await running.remote.close();
    } finally {
      running.remote[releaseProxy]();
      await running.worker.terminate();
    }
  }
}

async function waitUntil(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}
