/**
 * The main-thread side of the watcher actor. chokidar runs in workers/watcher.worker.ts; this client calls it
 * through comlink, receives its batched events, and keeps what it needs to start it again: if the thread dies,
 * a new one watches the same jobs (reporting files changed meanwhile), and `onRestarted` lets the owner
 * re-scan them for anything missed.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { releaseProxy, wrap, type Remote } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { FilterConfig } from '../../filters/schema.js';
import type { Logger } from '../../logger.js';
import { workerPath } from '../../paths.js';
import {
  DEFAULT_WATCHER_TUNING,
  type WatcherBatch,
  type WatcherEvent,
  type WatcherTuning,
  type WatcherWorkerApi,
  type WatcherWorkerData,
  type WatchSpec,
} from './protocol.js';

export * from './protocol.js';

/** How long closing waits for the watcher thread to close its watchers before the thread is stopped. */
const CLOSE_GRACE_MS = 5_000;

export interface SpawnWatcherOptions {
  ownDataDir: string;
  filters: FilterConfig;
  tuning?: Partial<WatcherTuning>;
  onEvents: (events: WatcherEvent[]) => void;
  /** The worker died and was started again; these jobs are watched again (re-scan them). */
  onRestarted?: (jobIds: number[]) => void;
  logger: Logger;
}

/** The watcher as the main thread sees it: the worker's API, kept alive across a restart of its thread. */
export interface WatcherHandle extends WatcherWorkerApi {
  readonly restarts: number;
  /** The thread running chokidar right now (diagnostics and tests). */
  readonly worker: Worker | null;
}

interface Running {
  worker: Worker;
  remote: Remote<WatcherWorkerApi>;
  port: MessagePort;
}

export async function spawnWatcher(options: SpawnWatcherOptions): Promise<WatcherHandle> {
  const tuning: WatcherTuning = { ...DEFAULT_WATCHER_TUNING, ...options.tuning };
  const specs = new Map<number, WatchSpec>();
  let filters = options.filters;
  let closing = false;
  let restarts = 0;
  let latest: Worker | null = null;

  const spawn = (): Running => {
    const { port1, port2 } = new MessageChannel();
    const data: WatcherWorkerData = { events: port2, ownDataDir: options.ownDataDir, filters, tuning };
    const worker = new Worker(workerPath('watcher.worker'), { workerData: data, transferList: [port2] });
    port1.on('message', (batch: WatcherBatch) => options.onEvents(batch.events));
    const running: Running = { worker, remote: wrap<WatcherWorkerApi>(nodeEndpoint(worker)), port: port1 };
    latest = worker;
    worker.once('exit', (code) => {
      port1.close();
      running.remote[releaseProxy]();
      if (latest === worker) latest = null;
      if (closing) return;
      options.logger.error({ code }, 'watcher worker stopped unexpectedly; restarting it');
      restarts++;
      current = restart();
    });
    worker.on('error', (err) => options.logger.error({ err }, 'watcher worker error'));
    return running;
  };

  const restart = async (): Promise<Running> => {
    const next = spawn();
    const jobs = [...specs.values()];
    for (const spec of jobs) {
      await next.remote.watch(spec, { catchUp: true }).catch((err: unknown) => options.logger.error({ err, job: spec.jobId }, 'could not watch again'));
    }
    options.onRestarted?.(jobs.map((s) => s.jobId));
    return next;
  };

  let current: Promise<Running> = Promise.resolve(spawn());
  const call = async <T>(fn: (remote: Remote<WatcherWorkerApi>) => Promise<T>): Promise<T> => {
    if (closing) throw new Error('watcher is closed');
    return fn((await current).remote);
  };

  return {
    async watch(spec, watchOptions) {
      specs.set(spec.jobId, spec);
      try {
        return await call((r) => r.watch(spec, watchOptions));
      } catch (err) {
        specs.delete(spec.jobId);
        throw err;
      }
    },
    async unwatch(jobId) {
      specs.delete(jobId);
      await call((r) => r.unwatch(jobId));
    },
    walk: (jobId) => call((r) => r.walk(jobId)),
    async setFilters(next) {
      filters = next;
      await call((r) => r.setFilters(next));
    },
    states: () => call((r) => r.states()),
    flush: () => call((r) => r.flush()),
    get restarts() {
      return restarts;
    },
    get worker() {
      return latest;
    },
    async close() {
      if (closing) return;
      closing = true;
      const running = await current.catch(() => null);
      if (!running) return;
      // chokidar closes its watchers at once, even mid-scan; a thread that does not answer in time is stopped anyway.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), CLOSE_GRACE_MS)));
      try {
        if ((await Promise.race([running.remote.close(), late])) === 'late') options.logger.warn('watcher worker did not close in time; stopping it');
      } catch (err) {
        options.logger.warn({ err }, 'watcher worker did not close cleanly');
      } finally {
        clearTimeout(timer);
      }
      await running.worker.terminate();
    },
  };
}
