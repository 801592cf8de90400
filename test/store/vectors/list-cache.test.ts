import { expect } from 'chai';
import { ListCache, type CachedList } from '../../../src/store/vectors/list-cache.js';

/** A list of `n` entries of 4 packed bytes each: 12 bytes an entry. */
const list = (n: number, mark = 0): CachedList => ({ seqs: new Float64Array(n).fill(mark), vecs: new Uint8Array(4 * n).fill(mark) });

describe('store/vectors list-cache: lists kept for searches', () => {
  it('keeps lists within its budget, the least recently used leaving first', () => {
    const cache = new ListCache(120); // ten entries
    cache.set('m', 1, list(4, 1));
    cache.set('m', 2, list(4, 2));
    expect(cache.bytes).to.equal(96);
    expect(cache.get('m', 1)?.seqs[0]).to.equal(1); // 1 used after 2: 2 is now the oldest
    cache.set('m', 3, list(2, 3)); // 120: fits
    expect(cache.bytes).to.equal(120);
    cache.set('m', 4, list(3, 4)); // 36 more: 2 leaves (48), then it fits
    expect(cache.get('m', 2)).to.equal(undefined);
    expect(cache.get('m', 1)?.seqs[0]).to.equal(1);
    expect(cache.get('m', 3)?.seqs[0]).to.equal(3);
    expect(cache.get('m', 4)?.seqs[0]).to.equal(4);
    expect(cache.bytes).to.equal(108);
  });

  it('tells models apart, replaces a list kept again, refuses one larger than the budget, and empties', () => {
    const cache = new ListCache(120);
    cache.set('a', 1, list(2, 1));
    cache.set('b', 1, list(2, 2));
    expect(cache.get('a', 1)?.seqs[0]).to.equal(1);
    expect(cache.get('b', 1)?.seqs[0]).to.equal(2);
    cache.set('a', 1, list(3, 5));
    expect(cache.get('a', 1)?.seqs[0]).to.equal(5);
    expect(cache.bytes).to.equal(60);
    cache.set('a', 2, list(11));
    expect(cache.get('a', 2)).to.equal(undefined);
    expect(cache.bytes).to.equal(60);
    cache.clear();
    expect(cache.bytes).to.equal(0);
    expect(cache.get('b', 1)).to.equal(undefined);
    expect(new ListCache(0).bytes).to.equal(0);
  });
});
