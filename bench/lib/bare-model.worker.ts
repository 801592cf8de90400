/**
 * One thread of the bare-model baseline (bench/index-pipeline.ts): an ONNX session with one intra-op thread, as
 * a pipeline thread has, fed pre-tokenised batches. Nothing but building the input tensors and running the
 * graph is timed here: no parsing, analysis, chunking, tokenising, pooling or storing.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSession } from '../../src/pipeline/embedders/onnx-session.js';

interface Job {
  /** One file's chunks as token-id rows, already grouped in batches (as the embedder groups them). */
  batches: number[][][];
}

const { modelPath, output } = workerData as { modelPath: string; output: string };
const session = await openSession(modelPath, { intraOpThreads: 1 });

async function runBatch(rows: number[][]): Promise<void> {
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
  await session.run(feeds, [rows.length, seq], output);
}

parentPort!.on('message', (job: Job | 'close') => {
  if (job === 'close') {
    void session.close().then(() => process.exit(0));
    return;
  }
  void (async () => {
    for (const batch of job.batches) await runBatch(batch);
    parentPort!.postMessage('done');
  })();
});
parentPort!.postMessage('ready');
