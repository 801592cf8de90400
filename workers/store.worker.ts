/**
 * Thread entry of the store actor on the embedded engine. PGlite runs every query synchronously in WASM, so it
 * lives here, off the main thread; the main thread reaches it through comlink (src/actors/store/worker-client.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { openPglite } from '../src/store/engines/pglite.js';
import { describeStore, openStore, type StoreApi } from '../src/store/store.js';
import type { SqlDatabase } from '../src/store/sql.js';
import type { StoreWorkerApi, StoreWorkerData } from '../src/actors/store/protocol.js';

if (!parentPort) throw new Error('store.worker must run as a worker thread');
const { dataDir } = workerData as StoreWorkerData;

let db: SqlDatabase | null = null;
let store: StoreApi | null = null;

const api: StoreWorkerApi = {
  async open() {
    db = await openPglite(dataDir);
    store = await openStore(db);
    return describeStore(store);
  },
  async call(repository, method, args) {
    if (!store) throw new Error('store is not open');
    const repo = store[repository] as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    const fn = repo[method];
    if (typeof fn !== 'function') throw new Error(`store has no method ${repository}.${method}`);
    return fn(...args);
  },
  async close() {
    const current = db;
    db = null;
    store = null;
    await current?.close();
  },
};

expose(api, nodeEndpoint(parentPort));
