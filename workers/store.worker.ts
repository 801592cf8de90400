/**
 * Thread entry of the store on the embedded engine. PGlite runs every query synchronously in WASM, so it lives
 * here, off the main thread; the main thread reaches it through comlink (src/store/worker-client.ts). Calls pass
 * a gate that runs one at a time, a person's searches before the indexer's writes (src/store/call-gate.ts).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { answerMemoryProbes } from '../src/lib/thread-memory.js';
import { openPglite, type PgliteDatabase } from '../src/store/engines/pglite.js';
import type { StoreWorkerApi, StoreWorkerData } from '../src/store/protocol.js';
import { CallGate } from '../src/store/call-gate.js';
import { callPriority, openStore, storeMethods, type StoreApi } from '../src/store/store.js';

if (!parentPort) throw new Error('store.worker must run as a worker thread');
const { dataDir, sharedBuffersMb, wal } = workerData as StoreWorkerData;

let db: PgliteDatabase | null = null;
let store: StoreApi | null = null;
const gate = new CallGate();
answerMemoryProbes('store', () => db?.wasmBytes() ?? 0);

/**
 * A due checkpoint as a background call of its own (pglite.ts, runCheckpoint), after the calls already waiting.
 * Nobody awaits it: one that fails (or finds the store closed) is tried again at the next check, WAL_CHECK_EVERY
 * transactions later, and the log only grows meanwhile.
 */
function runCheckpoint(checkpoint: () => Promise<void>): void {
  gate.run('background', async () => (db ? checkpoint() : undefined), 'engine.checkpoint').catch(() => undefined);
}

const api: StoreWorkerApi = {
  async open() {
    db = await openPglite(dataDir, {
      ...(sharedBuffersMb == null ? {} : { sharedBuffersMb }),
      ...(wal ? { walCheckpointBytes: wal.checkpointBytes, walCheckEvery: wal.checkEvery } : {}),
      runCheckpoint,
    });
    store = await openStore(db);
  },
  async call(repository, method, args, sentAt) {
    if (!store) throw new Error('store is not open');
    // Messages are plain data: check the name against the store's own list before calling it.
    if (!storeMethods(repository).includes(method)) throw new Error(`store has no method ${repository}.${method}`);
    // The generic signature types both ends; a lookup by name is the one step TypeScript cannot follow.
    const repo = store[repository] as unknown as Record<string, (...a: unknown[]) => Promise<never>>;
    return gate.run(callPriority(repository, method), () => repo[method]!(...args), `${repository}.${method}`, sentAt);
  },
  async calls() {
    return gate.figures();
  },
  async close() {
    const current = db;
    db = null;
    store = null;
    await current?.close();
  },
};

expose(api, nodeEndpoint(parentPort));
