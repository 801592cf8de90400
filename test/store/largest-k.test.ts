import { expect } from 'chai';
import { LargestK } from '../../src/store/largest-k.js';
import { seededRandom } from '../../scripts/lib/seeded-random.js';

describe('LargestK', () => {
  it('keeps the k largest scores and the values pushed with them, against sorting everything', () => {
    const next = seededRandom(7);
    const pushed = Array.from({ length: 500 }, (_, i) => ({ score: Math.round(next() * 1000) / 10, value: i }));
    const top = new LargestK(20);
    for (const p of pushed) top.push(p.score, p.value);
    const sorted = [...pushed].sort((a, b) => b.score - a.score || a.value - b.value);
    expect(top.kth).to.equal(sorted[19]!.score);
    const kept = top.values().map((v) => pushed[v]!.score).sort((a, b) => b - a);
    expect(kept).to.deep.equal(sorted.slice(0, 20).map((p) => p.score));
    // A copy goes on by itself.
    const copy = top.copy();
    copy.push(1000, 999);
    expect(copy.values()).to.include(999);
    expect(top.values()).to.not.include(999);
  });

  it('answers 0 as the k-th while fewer than k were pushed, and keeps nothing at k = 0', () => {
    const top = new LargestK(3);
    top.push(5, 1);
    expect(top.kth).to.equal(0);
    expect(top.values()).to.deep.equal([1]);
    const none = new LargestK(0);
    none.push(1, 1);
    expect(none.values()).to.deep.equal([]);
  });
});
