import { expect } from 'chai';
import { evaluateRuns, ndcgAt, percentile, recallAt } from '../../../bench/lib/metrics.js';

describe('ndcgAt', () => {
  it('matches a hand computation', () => {
    // relevant {a, c, z}; ranking a, b, c: DCG = 1 + 1/log2(4) = 1.5; IDCG = 1 + 1/log2(3) + 1/log2(4)
    const idcg = 1 + 1 / Math.log2(3) + 0.5;
    expect(ndcgAt(10, ['a', 'b', 'c'], new Set(['a', 'c', 'z']))).to.be.closeTo(1.5 / idcg, 1e-12);
  });

  it('is 1 for a perfect ranking, and cuts at k', () => {
    expect(ndcgAt(10, ['x', 'y'], new Set(['y', 'x']))).to.equal(1);
    expect(ndcgAt(1, ['b', 'a'], new Set(['a']))).to.equal(0);
  });

  it('counts a repeated id once, and is 0 with nothing relevant', () => {
    expect(ndcgAt(10, ['a', 'a'], new Set(['a', 'b']))).to.be.closeTo(1 / (1 + 1 / Math.log2(3)), 1e-12);
    expect(ndcgAt(10, ['a'], new Set())).to.equal(0);
  });
});

describe('recallAt', () => {
  it('is the share of relevant ids in the first k', () => {
    expect(recallAt(2, ['a', 'b', 'c'], new Set(['a', 'c']))).to.equal(0.5);
    expect(recallAt(3, ['a', 'b', 'c', 'c'], new Set(['a', 'c']))).to.equal(1);
    expect(recallAt(3, ['a'], new Set())).to.equal(0);
  });
});

describe('evaluateRuns', () => {
  it('averages over judged queries, a missing run counting 0', () => {
    const qrels = new Map([
      ['q1', new Set(['a'])],
      ['q2', new Set(['b'])],
    ]);
    const scores = evaluateRuns(new Map([['q1', ['a']]]), qrels);
    expect(scores).to.deep.equal({ ndcgAt10: 0.5, recallAt100: 0.5, queries: 2 });
  });
});

describe('percentile', () => {
  it('takes the nearest rank', () => {
    const values = [5, 1, 4, 2, 3, 6, 7, 8, 9, 10];
    expect(percentile(values, 0.5)).to.equal(5);
    expect(percentile(values, 0.95)).to.equal(10);
    expect(percentile([3], 0.5)).to.equal(3);
    expect(percentile([], 0.5)).to.be.NaN;
  });
});
