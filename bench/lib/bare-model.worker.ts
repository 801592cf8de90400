/**
 * One thread of the bare-model baseline (bench/index-pipeline.ts): an ONNX session with one intra-op thread, as
 * a pipeline thread has, or the built-in embedder's kernel over the shared table, fed pre-tokenised batches.
 * Nothing but building the input tensors and running the graph (or the kernel) is timed here: no parsing,
 * analysis, chunking, tokenising, pooling or storing.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSession } from '../../src/pipeline/embedders/onnx-session.js';
import { StaticTable } from '../../src/pipeline/embedders/static-table.js';
import type { BareModel } from './bare-model.js';

interface Job {
  /** One file's chunks as token-id rows, already grouped in batches (as the embedder groups them). */
  batches: number[][][];
}

const model = workerData as BareModel;
const session = model.kind === 'onnx' ? await openSession(model.modelPath, { intraOpThreads: 1 }) : null;
const table = model.kind === 'static' ? new StaticTable(model.table) : null;

async function runBatch(rows: number[][]): Promise<void> {
  if (table) {
    for (const row of rows) table.embed(row);
    return;
  }
  if (!session || model.kind !== 'onnx') throw new Error('no model');
  const seq = Math.max(1, ...rows.map((r) => r.length));
  const ids = new BigInt64Array(rows.length * seq);
  const mask = new BigInt64Array(rows.length * seq);
  rows.forEach((row, r) =>
    row.forEach((id, c) => {
      ids[r * seq + c] = BigInt(id);
      mask[r * seq + c] = 1n;
    }),
  );
  const feeds: Record<string, BigInt64Array> = {};
  for (const name of session.inputNames) {
    feeds[name] = name === 'input_ids' ? ids : name === 'attention_mask' ? mask : new BigInt64Array(ids.length);
  }
  await session.run(feeds, [rows.length, seq], model.output);
}

parentPort!.on('message', (job: Job | 'close') => {
  if (job === 'close') {
    void (session?.close() ?? Promise.resolve()).then(() => process.exit(0));
    return;
  }
  void (async () => {
    for (const batch of job.batches) await runBatch(batch);
    parentPort!.postMessage('done');
  })();
});
parentPort!.postMessage('ready');
