import { expect } from 'chai';
import { packedStride, packVectors, scorePacked } from '../../../src/store/vectors/layout.js';
import { growLists, ListTree, normalizeAt, splitInTwo } from '../../../src/store/vectors/lists.js';
import { seededRandom as random } from '../../../scripts/lib/seeded-random.js';

function unitVectors(n: number, dim: number, next: () => number, around?: Float32Array, spread = 1): Float32Array {
  const out = new Float32Array(n * dim);
  for (let r = 0; r < n; r++) {
    for (let d = 0; d < dim; d++) out[r * dim + d] = (around ? around[d]! : 0) + spread * (next() - 0.5);
    normalizeAt(out, r * dim, dim);
  }
  return out;
}

const dotRow = (a: Float32Array, r: number, q: Float32Array): number => {
  let s = 0;
  for (let d = 0; d < q.length; d++) s += a[r * q.length + d]! * q[d]!;
  return s;
};

describe('store/vectors layout: packed int8 vectors', () => {
  it('scores every packed vector within the quantisation bound of its float dot product', () => {
    const dim = 100;
    const next = random(1);
    const vectors = unitVectors(300, dim, next);
    const query = unitVectors(1, dim, next);
    const packed = packVectors(vectors, dim);
    expect(packed.length).to.equal(300 * packedStride(dim));
    const scores = new Float32Array(300);
    expect(scorePacked(packed, dim, query, scores)).to.equal(300);
    let worst = 0;
    for (let r = 0; r < 300; r++) worst = Math.max(worst, Math.abs(scores[r]! - dotRow(vectors, r, query)));
    // Half a step a component: at most sqrt(dim) · (max / 127) / 2 for a unit query; max <= 1.
    expect(worst).to.be.below(Math.sqrt(dim) / 127 / 2);
    expect(worst).to.be.above(0); // it is a quantisation: not the float values themselves
  });

  it('reads vectors from a view at any offset (a reply buffer), and writes scores from a given place', () => {
    const dim = 7; // not a multiple of the four running sums
    const vectors = unitVectors(5, dim, random(2));
    const packed = packVectors(vectors, dim);
    const shifted = new Uint8Array(packed.length + 3);
    shifted.set(packed, 3);
    const query = unitVectors(1, dim, random(3));
    const direct = new Float32Array(5);
    scorePacked(packed, dim, query, direct);
    const viaView = new Float32Array(8);
    scorePacked(shifted.subarray(3), dim, query, viaView, 2);
    expect(Array.from(viaView.subarray(2, 7))).to.deep.equal(Array.from(direct));
  });

  it('keeps a zero vector at score 0, and refuses rows that do not fit', () => {
    const packed = packVectors(new Float32Array(4), 4);
    const out = new Float32Array(1);
    scorePacked(packed, 4, new Float32Array([1, 2, 3, 4]), out);
    expect(out[0]).to.equal(0);
    expect(() => packVectors(new Float32Array(5), 4)).to.throw(RangeError, /not rows of 4/);
    expect(() => scorePacked(packed.subarray(1), 4, new Float32Array(4), out)).to.throw(RangeError, /not vectors of 4/);
    expect(() => scorePacked(packed, 4, new Float32Array(3), out)).to.throw(RangeError, /a query of 3/);
  });
});

describe('store/vectors lists: splitInTwo', () => {
  it('separates two clusters exactly', () => {
    const dim = 16;
    const next = random(4);
    const [a, b] = [unitVectors(1, dim, next), unitVectors(1, dim, next)];
    const vectors = new Float32Array(40 * dim);
    // Interleaved, so that halves by position would be wrong.
    const left = unitVectors(20, dim, next, a, 0.1);
    const right = unitVectors(20, dim, next, b, 0.1);
    for (let i = 0; i < 20; i++) {
      vectors.set(left.subarray(i * dim, (i + 1) * dim), 2 * i * dim);
      vectors.set(right.subarray(i * dim, (i + 1) * dim), (2 * i + 1) * dim);
    }
    const { side, sums } = splitInTwo(vectors, dim);
    const even = new Set(Array.from(side).filter((_, i) => i % 2 === 0));
    const odd = new Set(Array.from(side).filter((_, i) => i % 2 === 1));
    expect(even.size).to.equal(1);
    expect(odd.size).to.equal(1);
    expect([...even][0]).to.not.equal([...odd][0]);
    // Each side's sum is the sum of its vectors.
    const expected = new Float32Array(dim);
    for (let r = 0; r < 40; r++) if (side[r] === 0) for (let d = 0; d < dim; d++) expected[d]! += vectors[r * dim + d]!;
    for (let d = 0; d < dim; d++) expect(sums[0][d]).to.be.closeTo(expected[d]!, 1e-5);
  });

  it('splits vectors all alike in halves, never leaving a side empty', () => {
    const dim = 4;
    const one = new Float32Array([0.5, 0.5, 0.5, 0.5]);
    const vectors = new Float32Array(5 * dim);
    for (let r = 0; r < 5; r++) vectors.set(one, r * dim);
    const { side } = splitInTwo(vectors, dim);
    expect(Array.from(side)).to.deep.equal([0, 0, 1, 1, 1]);
    expect(() => splitInTwo(one, dim)).to.throw(RangeError, /two or more rows/);
  });
});

describe('store/vectors lists: ListTree and growLists', () => {
  const grow = (vectors: Float32Array, dim: number, maxSize: number): ReturnType<typeof growLists> => growLists(vectors, dim, maxSize, 4);

  it('grows lists within their bound that hold every vector once, and centroids that are their sums made unit', () => {
    const dim = 24;
    const vectors = unitVectors(2000, dim, random(5));
    const { tree, members } = grow(vectors, dim, 64);
    expect(tree.count).to.equal(members.length);
    expect(tree.count).to.be.within(2000 / 64, 2000 / 8);
    const seen = members.flat().sort((a, b) => a - b);
    expect(seen).to.deep.equal(Array.from({ length: 2000 }, (_, i) => i));
    for (const [list, rows] of members.entries()) {
      expect(rows.length).to.be.within(1, 64);
      const sum = new Float32Array(dim);
      for (const r of rows) for (let d = 0; d < dim; d++) sum[d]! += vectors[r * dim + d]!;
      normalizeAt(sum, 0, dim);
      const centroid = tree.centroid(list);
      for (let d = 0; d < dim; d++) expect(centroid[d]).to.be.closeTo(sum[d]!, 1e-4);
    }
  });

  it('finds the lists of clustered data: a query near a cluster probes the list holding it first', () => {
    const dim = 32;
    const next = random(6);
    const centres = Array.from({ length: 8 }, () => unitVectors(1, dim, next));
    const vectors = new Float32Array(8 * 50 * dim);
    // Arriving cluster after cluster, as folders do.
    centres.forEach((c, k) => vectors.set(unitVectors(50, dim, next, c, 0.05), k * 50 * dim));
    const { tree, members } = grow(vectors, dim, 64);
    for (const [k, c] of centres.entries()) {
      const [first] = tree.nearestLists(c, 1);
      const held = members[first!]!;
      expect(held.length).to.be.above(0);
      expect(held.every((r) => Math.floor(r / 50) === k), `cluster ${k}'s list holds only its vectors`).to.equal(true);
    }
  });

  it('answers the nearest lists best first, as comparing every centroid does, and assign agrees with the tree', () => {
    const dim = 16;
    const next = random(7);
    const { tree } = grow(unitVectors(1500, dim, next), dim, 32);
    const query = unitVectors(1, dim, next);
    const all = Array.from({ length: tree.count }, (_, list) => ({ list, s: dotRow(tree.centroid(list), 0, query) }))
      .sort((a, b) => b.s - a.s || a.list - b.list)
      .map((x) => x.list);
    expect(tree.nearestLists(query, 10)).to.deep.equal(all.slice(0, 10));
    expect(tree.nearestLists(query, tree.count + 5)).to.deep.equal(all);
    expect(tree.nearestLists(query, 0)).to.deep.equal([]);
    // A beam as wide as the lists compares every leaf: the nearest centroid.
    expect(tree.assign(query, tree.count)).to.equal(all[0]);
  });

  it('has no list before the first vector, and starts once', () => {
    const tree = new ListTree(3);
    expect(tree.count).to.equal(0);
    expect(tree.assign(new Float32Array(3))).to.equal(-1);
    expect(tree.nearestLists(new Float32Array(3), 4)).to.deep.equal([]);
    expect(tree.start(new Float32Array([1, 0, 0]))).to.equal(0);
    expect(() => tree.start(new Float32Array([1, 0, 0]))).to.throw(/has lists already/);
    expect(() => tree.centroid(1)).to.throw(RangeError, /no list 1/);
  });
});
