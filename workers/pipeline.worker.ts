/**
 * Thread entry of the piscina pipeline pool: one task = one stage pair for one file (see src/pipeline/task.ts).
 * The embedder is loaded once per thread, on first use, from where the task says; a task naming another source
 * (the model changed) closes it and loads that one. A thread runs one task at a time, so nothing else uses the
 * embedder being closed. The built-in embedder computes from the table the task carries (the pool's one copy,
 * shared memory), and its tokenizer and the keyword rarity look words up in the vocabulary index it carries.
 */
import { workerData } from 'node:worker_threads';
import { loadEmbedder } from '../src/pipeline/embedders/index.js';
import type { SharedStaticTable } from '../src/pipeline/embedders/static-table.js';
import type { Embedder } from '../src/pipeline/embedders/types.js';
import {
  embedText,
  enrich,
  prepare,
  type EmbedderSource,
  type EmbedTask,
  type EnrichTask,
  type PipelineTask,
  type PipelineWorkerData,
  type PrepareTask,
  type ProbeTask,
  type TaskResult,
} from '../src/pipeline/task.js';
import { collectGarbage } from '../src/lib/collect-garbage.js';
import { IdleTimer } from '../src/lib/idle-timer.js';
import { answerMemoryProbes } from '../src/lib/thread-memory.js';
import { WordIndex } from '../src/lib/word-index.js';

answerMemoryProbes('pipeline');

/**
 * A thread that has had no task for a second collects its garbage. V8 sizes a busy thread's heap for its churn
 * (100–150 MB, of which ~40 live) and, left idle, keeps it: at a bulk run's end the pipeline threads idle with that
 * heap while the store's upkeep seals and compacts the run's blocks and grows its own, which is when the service
 * peaks (docs/benchmarks/memory.md). The pool runs its threads without piscina's Atomics wait, so an idle thread's
 * timers run (src/pipeline/pool.ts).
 */
const IDLE_COLLECT_MS = 1_000;
const idle = new IdleTimer((workerData as PipelineWorkerData | undefined)?.idleCollectMs ?? IDLE_COLLECT_MS, collectGarbage);

let loaded: { key: string; embedder: Promise<Embedder> } | null = null;

/** The embedder `source` names, loaded once (with `table`, the pool's shared one, when it is the built-in embedder). */
function getEmbedder(source: EmbedderSource, table: SharedStaticTable | null): Promise<Embedder> {
  const key = `${source.generation}\0${source.modelDir ?? ''}\0${source.builtinDir}`;
  if (loaded?.key !== key) {
    loaded?.embedder.then((e) => e.close()).catch(() => undefined);
    const embedder = loadEmbedder({
      modelDir: source.modelDir ?? undefined,
      builtinDir: source.builtinDir,
      intraOpThreads: 1,
      static: table ? { table } : {},
    });
    const current = { key, embedder };
    loaded = current;
    // A failed load is retried on the next task rather than cached forever.
    embedder.catch(() => {
      if (loaded === current) loaded = null;
    });
  }
  return loaded.embedder;
}

/** One task, one answer: the pool reads it as TaskResult<T> (src/pipeline/task.ts) for the task it sent. */
export default async function run(task: PipelineTask): Promise<TaskResult<PipelineTask>> {
  idle.cancel();
  try {
    return await runTask(task);
  } finally {
    idle.arm();
  }
}

async function runTask(task: PipelineTask): Promise<TaskResult<PipelineTask>> {
  if ((task.kind === 'enrich' || task.kind === 'embed') && task.words) WordIndex.adopt(task.words.file, task.words.index);
  switch (task.kind) {
    case 'prepare':
      return prepare(task) satisfies Promise<TaskResult<PrepareTask>>;
    case 'enrich':
      return enrich(task, task.embed ? await getEmbedder(task.embedder, task.table) : null) satisfies Promise<TaskResult<EnrichTask>>;
    case 'embed':
      return embedText(task.text, task.title, await getEmbedder(task.embedder, task.table)) satisfies Promise<TaskResult<EmbedTask>>;
    case 'probe':
      return (await getEmbedder(task.embedder, task.table)).info satisfies TaskResult<ProbeTask>;
  }
}
