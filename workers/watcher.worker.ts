/**
 * Thread entry of the watcher actor: chokidar and its event storms (a `git checkout` touching 10,000 files)
 * stay off the main thread. The main thread calls WatcherWorkerApi through comlink (src/actors/watcher/index.ts)
 * and receives batched events on the MessagePort from workerData.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { answerMemoryProbes } from '../src/lib/thread-memory.js';
import type { WatcherBatch, WatcherWorkerApi, WatcherWorkerData } from '../src/actors/watcher/protocol.js';
import { WatcherCore } from '../src/actors/watcher/watcher-core.js';

if (!parentPort) throw new Error('watcher.worker must run as a worker thread');
answerMemoryProbes('watcher');
const data = workerData as WatcherWorkerData;

const core = new WatcherCore({
  emit: (events) => data.events.postMessage({ events } satisfies WatcherBatch),
  ownDataDir: data.ownDataDir,
  filters: data.filters,
  tuning: data.tuning,
});

const api: WatcherWorkerApi = {
  watch: (spec, options) => core.watch(spec, options),
  unwatch: (jobId) => core.unwatch(jobId),
  walk: (jobId) => core.walk(jobId),
  setFilters: (filters) => core.setFilters(filters),
  states: async () => core.states(),
  flush: async () => core.flush(),
  async close() {
    await core.close();
    data.events.close();
  },
};

expose(api, nodeEndpoint(parentPort));
