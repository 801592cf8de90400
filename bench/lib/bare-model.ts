/**
 * The bare-model baseline: the same chunks the pipeline embedded, pre-tokenised and batched the way the
 * embedder batches them (per file, longest first, batches of 8), run through plain ONNX sessions in N worker
 * threads (one intra-op thread each, the pipeline's layout), files handed out to whichever thread is free. The
 * built-in embedder's baseline is its own kernel (StaticTable.embed) on the process's one shared table, as the
 * pipeline threads compute it.
 */
import { Worker } from 'node:worker_threads';
import type { SharedStaticTable } from '../../src/pipeline/embedders/static-table.js';

/** What the bare threads run: an ONNX graph (a transformer) or the built-in embedder's kernel over a shared table. */
export type BareModel = { kind: 'onnx'; modelPath: string; output: string } | { kind: 'static'; table: SharedStaticTable };

export interface BareResult {
  seconds: number;
  cpuSeconds: number;
  chunks: number;
}

/** Groups one file's token rows as the embedders do: sorted longest first, in batches of batchSize. */
export function batchesOf(rows: number[][], batchSize: number): number[][][] {
  const sorted = [...rows].sort((a, b) => b.length - a.length);
  const out: number[][][] = [];
  for (let i = 0; i < sorted.length; i += batchSize) out.push(sorted.slice(i, i + batchSize));
  return out;
}

export async function runBare(options: { model: BareModel; threads: number; files: number[][][][] }): Promise<BareResult> {
  const workers = await Promise.all(
    Array.from({ length: options.threads }, async () => {
      const worker = new Worker(new URL('./bare-model.worker.js', import.meta.url), { workerData: options.model });
      await new Promise<void>((resolve, reject) => {
        worker.once('message', () => resolve());
        worker.once('error', reject);
      });
      return worker;
    }),
  );
  // Warm-up: one file per thread, untimed (first runs allocate arenas).
  await Promise.all(workers.map((w, i) => send(w, options.files[i % options.files.length] ?? [])));
  const chunks = options.files.reduce((n, f) => n + f.reduce((m, b) => m + b.length, 0), 0);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  let next = 0;
  await Promise.all(
    workers.map(async (w) => {
      while (next < options.files.length) await send(w, options.files[next++]!);
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  await Promise.all(
    workers.map(
      (w) =>
        new Promise<void>((resolve) => {
          w.once('exit', () => resolve());
          w.postMessage('close');
        }),
    ),
  );
  return { seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, chunks };
}

function send(worker: Worker, batches: number[][][]): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    worker.once('error', onError);
    worker.once('message', () => {
      worker.off('error', onError);
      resolve();
    });
    worker.postMessage({ batches });
  });
}
