/**
 * Thread entry of the query embedder: its own thread and its own embedder, so embedding a search query never
 * waits behind indexing work in the pipeline pool. The built-in embedder uses the process's vocabulary index and
 * table, sent by the main thread (shared memory, the pipeline threads' copies).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { answerMemoryProbes } from '../src/lib/thread-memory.js';
import { WordIndex } from '../src/lib/word-index.js';
import { loadEmbedder } from '../src/pipeline/embedders/index.js';
import type { Embedder } from '../src/pipeline/embedders/types.js';
import type { QueryEmbedderData, QueryEmbedderWorkerApi } from '../src/models/query-embedder.js';

if (!parentPort) throw new Error('query-embedder.worker must run as a worker thread');
answerMemoryProbes('query-embedder');
const { modelDir, builtinDir, words, table } = workerData as QueryEmbedderData;
if (words) WordIndex.adopt(words.file, words.index);
let embedder: Embedder | null = null;

const api: QueryEmbedderWorkerApi = {
  async load() {
    embedder = await loadEmbedder({ modelDir: modelDir ?? undefined, builtinDir, intraOpThreads: 1, static: table ? { table } : {} });
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
