/**
 * The embedded store's thread (workers/store.worker.ts), started and opened. Apart from worker-client.ts, whose
 * imports (every repository's method list) cost ~50 ms to load, so a start can begin PGlite's open (~0.8 s on its
 * thread) before the rest of the service has loaded (src/service-start.ts).
 */
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { releaseProxy, wrap, type Remote } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { workerPath } from '../paths.js';
import type { StoreWorkerApi, StoreWorkerData } from './protocol.js';

/** A store call (or the store's start) failed because its thread is gone or closing. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
}

export interface StoreThread {
  worker: Worker;
  remote: Remote<StoreWorkerApi>;
}

/**
 * The store thread's young generation. Without a limit of its own a worker's is sized for the machine (V8's
 * process-wide default), and the store's thread, which turns every write's rows and every answer into short-lived
 * objects and buffers, let them pile up between collections: on the whole Debian corpus (5,412 files,
 * `bench:corpus --sample 0`, two alternating rounds, load 1.3–2.3) its heap reached 78–82 MB and the run peaked at
 * 596 / 584 MB; with 16 MB, 63–67 MB and 577 / 571 MB, at the same CPU (37.5 / 37.4 against 36.3 / 40.0 ms a file).
 * The old generation keeps V8's default: the store's live data grows with the index's size, and running out would
 * stop the service.
 */
export const STORE_HEAP_LIMITS = { maxYoungGenerationSizeMb: 16 } as const;

/** Where PGlite keeps its files inside the service's data directory. */
export const pgliteDir = (dataDir: string): string => path.join(dataDir, 'pglite');

/** What PGlite's thread is started with: the service's data directory (null: in memory, tests) and shared_buffers. */
export function storeThreadData(options: { dataDir: string | null; sharedBuffersMb?: number | null | undefined }): StoreWorkerData {
  return { dataDir: options.dataDir ? pgliteDir(options.dataDir) : null, sharedBuffersMb: options.sharedBuffersMb ?? null };
}

/** Starts the thread and opens the database in it; a thread that fails to open is stopped. */
export async function openStoreThread(data: StoreWorkerData): Promise<StoreThread> {
  const worker = new Worker(workerPath('store.worker'), { workerData: data, resourceLimits: STORE_HEAP_LIMITS });
  const remote = wrap<StoreWorkerApi>(nodeEndpoint(worker));
  const died = new Promise<never>((_, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new StoreUnavailableError(`store worker exited with code ${code}`)));
  });
  try {
    await Promise.race([remote.open(), died]);
    return { worker, remote };
  } catch (err) {
    remote[releaseProxy]();
    await worker.terminate();
    throw err;
  }
}

