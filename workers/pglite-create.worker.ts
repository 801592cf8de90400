/**
 * Thread entry that creates a new PGlite database (initdb) and ends. PGlite keeps its initdb module's memory
 * (~450 MB: WASM memories and buffers) referenced for as long as the instance that created the database lives,
 * so the store opens every database already created: this thread's end frees all of it at once
 * (src/store/engines/pglite.ts, createInThread).
 */
import { workerData } from 'node:worker_threads';
import { createPglite, type PgliteCreateData } from '../src/store/engines/pglite.js';

const { dataDir, startParams } = workerData as PgliteCreateData;
await createPglite(dataDir, startParams);
