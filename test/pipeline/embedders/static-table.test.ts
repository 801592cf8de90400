import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { defaultBuiltinDir } from '../../../src/pipeline/embedders/index.js';
import { StaticEmbedder } from '../../../src/pipeline/embedders/static.js';
import { StaticTable } from '../../../src/pipeline/embedders/static-table.js';
import { graphEmbed } from '../../helpers/static-graph.js';
import { sharedPath } from '../../helpers/shared.js';

/** The weighted sum and its norm in float64, without any rounding order: what the kernel approximates. */
function reference(table: StaticTable, ids: readonly number[]): Float64Array {
  const sum = new Float64Array(table.dimension);
  for (const id of ids) for (let d = 0; d < table.dimension; d++) sum[d]! += table.weights[id]! * table.vectors[id * table.dimension + d]!;
  const norm = Math.max(Math.hypot(...sum), 1e-12);
  return sum.map((x) => x / norm);
}

const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
};

/** Uses the real build (build/models/builtin-static) and real text: SciFact abstracts, chunked as indexing does. */
describe('StaticTable (the built-in embedder kernel)', function () {
  this.timeout(60_000);
  let embedder: StaticEmbedder;
  let rows: number[][];

  before(async () => {
    embedder = await StaticEmbedder.load(defaultBuiltinDir());
    const dir = sharedPath('datasets', 'scifact', 'files');
    rows = [];
    for (const name of readdirSync(dir).sort().slice(0, 40)) {
      const text = readFileSync(path.join(dir, name), 'utf8');
      for (const chunk of embedder.chunk(text, text.split('\n')[0]!)) rows.push(embedder.tokenizer.ids(chunk.text));
    }
    // Every remainder of four words, a repeated word, one word, none, and a widened long-document window.
    const long = rows.flat();
    rows.push(long.slice(0, 1), long.slice(0, 2), long.slice(0, 3), long.slice(0, 5), [long[0]!, long[0]!, long[0]!], [], long.slice(0, 3001));
  });

  it('computes the ONNX graph it replaced bit for bit (a text embedded alone, as builder version 1 ran it)', async () => {
    const graph = await graphEmbed(embedder.table, rows);
    rows.forEach((ids, i) => expect(Array.from(embedder.table.embed(ids)), `row ${i} (${ids.length} words)`).to.deep.equal(Array.from(graph[i]!)));
  });

  it('is within float32 rounding of the exact weighted average; no words give the zero vector', () => {
    for (const ids of rows) {
      const v = embedder.table.embed(ids);
      if (ids.length === 0) expect(Array.from(v).every((x) => x === 0)).to.equal(true);
      else expect(maxDiff(v, reference(embedder.table, ids))).to.be.below(1e-6);
    }
  });

  it('is sent to another thread as shared memory: that thread computes the same vectors from the same bytes', async () => {
    const table = embedder.table;
    const shared = table.shared();
    for (const array of [shared.vectors, shared.weights]) expect(array.buffer).to.be.instanceOf(SharedArrayBuffer);
    const module = new URL('../../../src/pipeline/embedders/static-table.js', import.meta.url).href;
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       import(workerData.module).then(({ StaticTable }) => {
         const table = new StaticTable(workerData.shared);
         const vector = table.embed(workerData.ids);
         workerData.shared.weights[0] = 0.5; // row 0 ([PAD]) is all zero: a write the sender sees, not a copy
         parentPort.postMessage(vector);
       });`,
      { eval: true, workerData: { module, shared, ids: rows[0] } },
    );
    try {
      const vector = await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
      expect(Array.from(vector as Float32Array)).to.deep.equal(Array.from(table.embed(rows[0]!)));
      expect(table.weights[0]).to.equal(0.5);
    } finally {
      table.weights[0] = 0;
      await worker.terminate();
    }
  });

  it('reads a build into shared memory, and refuses a file of the wrong size', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'filesift-table-'));
    try {
      writeFileSync(path.join(dir, 'v.i8'), Int8Array.from([0, 0, 3, -4, 6, 8]));
      writeFileSync(path.join(dir, 'w.f32'), new Uint8Array(Float32Array.from([0, 0.5, 0.25]).buffer));
      const table = StaticTable.read(dir, { vectors: 'v.i8', weights: 'w.f32' }, 3, 2);
      expect(table.vectors.buffer).to.be.instanceOf(SharedArrayBuffer);
      expect([table.rows, table.dimension, table.bytes]).to.deep.equal([3, 2, 18]);
      // 0.5 × (3, -4) + 0.25 × (6, 8) = (3, 0)
      expect(Array.from(table.embed([1, 2]))).to.deep.equal([1, 0]);
      expect(() => StaticTable.read(dir, { vectors: 'v.i8', weights: 'w.f32' }, 4, 2)).to.throw(/has 6 bytes, expected 8/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
