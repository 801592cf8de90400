import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packedStride, packVectors, scorePacked } from '../../../src/store/vectors/layout.js';
import { MAX_DIM, PackedScorer } from '../../../src/store/vectors/packed-dot.js';
import { PACKED_DOT_WASM } from '../../../src/store/vectors/packed-dot.wasm.js';
import { assembleWat, WASM_SOURCES, wasmModuleText } from '../../../scripts/lib/wasm.js';
import { seededRandom as random } from '../../../scripts/lib/seeded-random.js';
import { repoRoot } from '../../helpers/shared.js';

function floats(n: number, next: () => number, scale = 1): Float32Array {
  return Float32Array.from({ length: n }, () => scale * (next() * 2 - 1));
}

/** The largest difference between the WebAssembly scores and JavaScript's scorePacked, relative to the largest score. */
function worstDifference(dim: number, n: number, seed: number): { worst: number; largest: number } {
  const next = random(seed);
  const packed = packVectors(floats(n * dim, next), dim);
  const query = floats(dim, next, 3);
  const reference = new Float32Array(n);
  scorePacked(packed, dim, query, reference);
  const scores = new Float32Array(n);
  expect(new PackedScorer(query, dim).score(packed, scores)).to.equal(n);
  let worst = 0;
  let largest = 0;
  for (let r = 0; r < n; r++) {
    worst = Math.max(worst, Math.abs(scores[r]! - reference[r]!));
    largest = Math.max(largest, Math.abs(reference[r]!));
  }
  return { worst, largest };
}

describe('store/vectors packed-dot: the WebAssembly scorer', () => {
  it('is the bytes its WAT source assembles to (npm run build:wasm)', async () => {
    for (const source of WASM_SOURCES) {
      const bytes = await assembleWat(readFileSync(path.join(repoRoot, source.wat), 'utf8'), source.wat);
      expect(readFileSync(path.join(repoRoot, source.ts), 'utf8'), `${source.ts} is out of date: run npm run build:wasm`).to.equal(
        wasmModuleText(source, bytes),
      );
    }
    expect(PACKED_DOT_WASM.length).to.be.above(100);
  });

  it("scores as JavaScript's scorePacked does, to a few 1e-5 of the largest score, for every width", () => {
    // Multiples of 8 and not (the one-at-a-time end), the model sizes, and one past MAX_DIM (scorePacked itself).
    for (const dim of [1, 4, 7, 8, 13, 100, 384, 768, 1536, MAX_DIM + 1]) {
      const { worst, largest } = worstDifference(dim, dim > 2000 ? 3 : 200, dim);
      expect(largest, `dim ${dim}`).to.be.above(0);
      expect(worst / largest, `dim ${dim}`).to.be.below(1e-4);
    }
  });

  it('cannot overflow: every byte at the extreme, the query at its largest, the widest kernel width', () => {
    const dim = MAX_DIM;
    const vector = new Uint8Array(packedStride(dim));
    new DataView(vector.buffer).setFloat32(0, 1, true);
    vector.fill(0x80, 4); // -128: one more than packVectors ever writes
    const query = new Float32Array(dim).fill(-1);
    const out = new Float32Array(1);
    new PackedScorer(query, dim).score(vector, out);
    expect(out[0]! / (128 * dim)).to.be.closeTo(1, 1e-6);
  });

  it('reads vectors from a view at any offset and writes scores from a given place, growing its memory', () => {
    const dim = 100;
    const next = random(7);
    const n = 2000; // 208 KB: more than the kernel's first page
    const packed = packVectors(floats(n * dim, next), dim);
    const shifted = new Uint8Array(packed.length + 3);
    shifted.set(packed, 3);
    const scorer = new PackedScorer(floats(dim, next), dim);
    const direct = new Float32Array(n);
    scorer.score(packed, direct);
    const viaView = new Float32Array(n + 5);
    scorer.score(shifted.subarray(3), viaView, 5);
    expect(Array.from(viaView.subarray(5))).to.deep.equal(Array.from(direct));
    expect(Array.from(viaView.subarray(0, 5))).to.deep.equal([0, 0, 0, 0, 0]);
  });

  it('keeps a zero query and a zero vector at 0, interleaves scorers, and refuses what does not fit', () => {
    const dim = 16;
    const next = random(9);
    const packed = packVectors(floats(3 * dim, next), dim);
    const zero = new Float32Array(3);
    new PackedScorer(new Float32Array(dim), dim).score(packed, zero);
    expect(Array.from(zero)).to.deep.equal([0, 0, 0]);
    const a = new PackedScorer(floats(dim, next), dim);
    const b = new PackedScorer(floats(dim, next), dim);
    const [a1, b1, a2] = [new Float32Array(3), new Float32Array(3), new Float32Array(3)];
    a.score(packed, a1);
    b.score(packed, b1);
    a.score(packed, a2);
    expect(Array.from(a2)).to.deep.equal(Array.from(a1));
    expect(Array.from(b1)).to.not.deep.equal(Array.from(a1));
    const out = new Float32Array(1);
    new PackedScorer(floats(4, next), 4).score(packVectors(new Float32Array(4), 4), out);
    expect(out[0]).to.equal(0);
    expect(() => a.score(packed.subarray(1), out)).to.throw(RangeError, /not vectors of 16/);
    expect(() => new PackedScorer(new Float32Array(3), 4)).to.throw(RangeError, /a query of 3/);
  });
});
