/**
 * Thread entry of the piscina pipeline pool: one task = one stage pair for one file (see src/pipeline/task.ts).
 * The embedder is loaded once per thread, on first use. A model change starts a fresh pool (new workerData).
 */
import { workerData } from 'piscina';
import { loadEmbedder } from '../src/pipeline/embedders/index.js';
import type { Embedder, EmbedderInfo } from '../src/pipeline/embedders/types.js';
import { embedText, enrich, prepare, type EmbedResult, type EnrichResult, type PipelineTask } from '../src/pipeline/task.js';
import type { ParseOutcome } from '../src/pipeline/types.js';
import type { PipelineWorkerData } from '../src/pipeline/pool.js';

const options = workerData as PipelineWorkerData;
let embedder: Promise<Embedder> | null = null;

function getEmbedder(): Promise<Embedder> {
  embedder ??= loadEmbedder({ modelDir: options.modelDir ?? undefined, builtinDir: options.builtinDir, intraOpThreads: 1 });
  // A failed load is retried on the next task rather than cached forever.
  embedder.catch(() => (embedder = null));
  return embedder;
}

export default async function run(task: PipelineTask): Promise<ParseOutcome | EnrichResult | EmbedResult | EmbedderInfo> {
  switch (task.kind) {
    case 'prepare':
      return prepare(task);
    case 'enrich':
      return enrich(task, task.embed ? await getEmbedder() : null);
    case 'embed':
      return embedText(task.text, task.title, await getEmbedder());
    case 'probe':
      return (await getEmbedder()).info;
  }
}
