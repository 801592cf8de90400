/**
 * Thread entry of the query embedder: its own thread and its own model session, so embedding a search query
 * never waits behind indexing work in the pipeline pool.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { answerMemoryProbes } from '../src/lib/thread-memory.js';
import { loadEmbedder } from '../src/pipeline/embedders/index.js';
import type { Embedder } from '../src/pipeline/embedders/types.js';
import type { QueryEmbedderData, QueryEmbedderWorkerApi } from '../src/models/query-embedder.js';

if (!parentPort) throw new Error('query-embedder.worker must run as a worker thread');
answerMemoryProbes('query-embedder');
const { modelDir, builtinDir } = workerData as QueryEmbedderData;
let embedder: Embedder | null = null;

const api: QueryEmbedderWorkerApi = {
  async load() {
    embedder = await loadEmbedder({ modelDir: modelDir ?? undefined, builtinDir, intraOpThreads: 1 });
    return embedder.info;
  },
  async embed(text) {
    if (!embedder) throw new Error('query embedder is not loaded');
    return embedder.embedQuery(text);
  },
  async close() {
    await embedder?.close();
    embedder = null;
  },
};

expose(api, nodeEndpoint(parentPort));
