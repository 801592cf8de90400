/**
 * One round of bench/pipeline-heap.ts, in a process of its own (so that its peak RSS is its own): a worker thread
 * with the given V8 heap limits, as the pipeline pool starts one, parses, analyses and embeds the files one after
 * the other as a pipeline thread does (src/pipeline/task.ts, the built-in embedder, the service's default limits).
 * Prints one JSON line: files done, the process's CPU (every thread: V8's helpers mark concurrently), the worker's
 * full collections and the process's peak RSS.
 *   node dist/bench/lib/pipeline-heap-child.js OLD_MB YOUNG_MB LIST_FILE
 * LIST_FILE: the files' paths, one a line.
 */
import { readFileSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { ANALYZE_MAX_INPUT_CHARS, parseLimits } from '../../src/indexing/indexer.js';
import { defaultBuiltinDir, loadEmbedder } from '../../src/pipeline/embedders/index.js';
import { enrich, prepare } from '../../src/pipeline/task.js';
import { defaultSettings } from '../../src/settings/schema.js';

export interface HeapRound {
  files: number;
  cpuMs: number;
  majorGcs: number;
  peakRssMb: number;
}

interface WorkerInput {
  files: string[];
}

/** The default settings' parse limits, as the indexer derives them. */
const PARSE = parseLimits(defaultSettings().indexing);

async function work({ files }: WorkerInput): Promise<{ files: number; majorGcs: number }> {
  let majorGcs = 0;
  const gcs = new PerformanceObserver((list) => {
    // A gc entry's kind is in its detail (Node's typings leave it out).
    for (const entry of list.getEntries()) if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majorGcs++;
  });
  gcs.observe({ entryTypes: ['gc'] });
  const builtinDir = defaultBuiltinDir();
  const embedder = await loadEmbedder({ builtinDir });
  let done = 0;
  for (const path of files) {
    const parsed = await prepare({ kind: 'prepare', path, parse: PARSE });
    if (!parsed.ok) continue;
    await enrich(
      {
        kind: 'enrich',
        doc: parsed.doc,
        embedder: { modelDir: null, builtinDir, generation: 0 },
        words: null,
        table: null,
        analyze: { provider: 'local', model: 'extractive', timeoutMs: 30_000, maxInputChars: ANALYZE_MAX_INPUT_CHARS },
        embed: true,
      },
      embedder,
    );
    done++;
  }
  await embedder.close();
  // Entries are delivered asynchronously: let the last ones arrive.
  await new Promise((resolve) => setTimeout(resolve, 50));
  gcs.disconnect();
  return { files: done, majorGcs };
}

if (isMainThread) {
  const [oldMb, youngMb, listFile] = process.argv.slice(2);
  if (!listFile) throw new Error('usage: pipeline-heap-child OLD_MB YOUNG_MB LIST_FILE');
  const files = readFileSync(listFile, 'utf8').split('\n').filter((line) => line !== '');
  const started = process.cpuUsage();
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { files } satisfies WorkerInput,
    resourceLimits: { maxOldGenerationSizeMb: Number(oldMb), maxYoungGenerationSizeMb: Number(youngMb) },
  });
  const result = await new Promise<{ files: number; majorGcs: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  await worker.terminate();
  const cpu = process.cpuUsage(started);
  const round: HeapRound = { ...result, cpuMs: (cpu.user + cpu.system) / 1000, peakRssMb: process.resourceUsage().maxRSS / 1024 };
  process.stdout.write(`${JSON.stringify(round)}\n`);
} else {
  parentPort!.postMessage(await work(workerData as WorkerInput));
}
