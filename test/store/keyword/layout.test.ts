/**
 * Postings decoded into a PostingArena (the arrays a search reuses) read exactly as decoded into arrays of their
 * own, stay valid while the arena grows, and two searches at once never share an arena.
 */
import { expect } from 'chai';
import { seededRandom } from '../../../scripts/lib/seeded-random.js';
import { PostingArena, POSTING_BYTES, scorePostings, type Fields } from '../../../src/store/keyword/layout.js';

/** `n` posting records as the index stores them (big-endian), some with no weighted match. */
function records(random: () => number, n: number, firstDoc: number): Uint8Array {
  const bytes = new Uint8Array(n * POSTING_BYTES);
  const v = new DataView(bytes.buffer);
  for (let i = 0, at = 0; i < n; i++, at += POSTING_BYTES) {
    v.setInt32(at, firstDoc + i * 3);
    for (let f = 0; f < 4; f++) v.setInt16(at + 4 + 2 * f, random() < 0.2 ? 0 : Math.floor(random() * 5));
    for (let f = 0; f < 3; f++) v.setInt16(at + 12 + 2 * f, 1 + Math.floor(random() * 50));
    v.setInt32(at + 18, 1 + Math.floor(random() * 5000));
  }
  return bytes;
}

describe('PostingArena', () => {
  const weights: Fields = [2, 1.5, 1, 0.5];
  const score = (tf: number, dl: number) => (1.7 * tf) / (tf + 0.3 + 0.001 * dl);

  it('decodes what scorePostings decodes alone, its views intact while it grows and after', () => {
    const random = seededRandom(5);
    const lists = Array.from({ length: 40 }, (_, i) => records(random, 1 + Math.floor(random() * 3_000), i * 10_000));
    const arena = PostingArena.lease();
    const views = lists.map((bytes) => scorePostings(bytes, weights, score, arena)); // grows past its first 65,536
    const alone = lists.map((bytes) => scorePostings(bytes, weights, score));
    for (let i = 0; i < lists.length; i++) {
      expect([...views[i]!.docs]).to.deep.equal([...alone[i]!.docs]);
      expect([...views[i]!.scores]).to.deep.equal([...alone[i]!.scores]);
    }
    arena.release();
  });

  it('lends its spare to one search at a time, and takes it back', () => {
    const first = PostingArena.lease();
    const second = PostingArena.lease(); // a second search while the first holds the spare
    expect(second).to.not.equal(first);
    first.release();
    expect(PostingArena.lease()).to.equal(first);
    second.release();
  });
});
