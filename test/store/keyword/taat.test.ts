/**
 * sumPostings and termAtATimeTopK on their own: the same doubles as decoding every posting with scorePostings and
 * summing by hand in the query's order, whatever the scratch arrays they reuse between evaluations held before
 * (dead documents, filters that ask again, fields weighted 0), and when two evaluations interleave at admit(), as
 * concurrent searches do on the PostgreSQL engine.
 */
import { expect } from 'chai';
import { seededRandom } from '../../../scripts/lib/seeded-random.js';
import { POSTING_BYTES, scorePostings, type Fields } from '../../../src/store/keyword/layout.js';
import { scorer } from '../../../src/store/keyword/search.js';
import { sumPostings, termAtATimeTopK, type TermPostings } from '../../../src/store/keyword/taat.js';

/** Posting records of the given documents as the index stores them (big-endian), some with no match in a field. */
function records(random: () => number, docs: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(docs.length * POSTING_BYTES);
  const v = new DataView(bytes.buffer);
  docs.forEach((doc, i) => {
    const at = i * POSTING_BYTES;
    v.setInt32(at, doc);
    const field = Math.floor(random() * 4); // at least one field matches
    for (let f = 0; f < 4; f++) v.setInt16(at + 4 + 2 * f, f === field ? 1 + Math.floor(random() * 6) : random() < 0.7 ? 0 : Math.floor(random() * 4));
    for (let f = 0; f < 3; f++) v.setInt16(at + 12 + 2 * f, 1 + Math.floor(random() * 50));
    v.setInt32(at + 18, 1 + Math.floor(random() * 5000));
  });
  return bytes;
}

/** Random query words: per word a block list and a tail, each in document order, and its formula's constants. */
function randomTerms(random: () => number, terms: number, docs: number): TermPostings[] {
  return Array.from({ length: terms }, () => {
    const lists: Uint8Array[] = [];
    for (let part = 0; part < 2; part++) {
      const picked = [...new Set(Array.from({ length: Math.floor(random() * docs * 0.3) }, () => Math.floor(random() * docs)))].sort((a, b) => a - b);
      lists.push(records(random, picked));
    }
    return { lists, weight: 0.5 + 3 * random(), c1: 0.3, c2: 0.9 / (50 + 500 * random()) };
  });
}

/** Every live document's sum: each posting decoded and scored by scorePostings, added in the words' order. */
function sums(terms: readonly TermPostings[], weights: Fields, dead: ReadonlySet<number>): Map<number, number> {
  const out = new Map<number, number>();
  for (const { lists, weight, c1, c2 } of terms) {
    for (const bytes of lists) {
      const { docs, scores } = scorePostings(bytes, weights, scorer(weight, c1, c2));
      docs.forEach((doc, i) => {
        if (!dead.has(doc)) out.set(doc, (out.get(doc) ?? 0) + scores[i]!);
      });
    }
  }
  return out;
}

/** The reference answer: of the documents `allowed` lets through, those scoring at least the k-th best. */
function reference(all: Map<number, number>, k: number, allowed: (doc: number) => boolean): Map<number, number> {
  const kept = [...all].filter(([doc]) => allowed(doc));
  const sorted = kept.map(([, s]) => s).sort((a, b) => b - a);
  const threshold = sorted.length >= k ? sorted[k - 1]! : Number.NEGATIVE_INFINITY;
  return new Map(kept.filter(([, s]) => s >= threshold));
}

const evaluate = (terms: readonly TermPostings[], weights: Fields, dead: ReadonlySet<number>, k: number, admit?: (docs: readonly number[]) => Promise<ReadonlySet<number>>, also?: number[]) =>
  termAtATimeTopK(sumPostings(terms, weights, dead), k, admit, also);

describe('termAtATimeTopK', () => {
  it('answers the hand-summed top k with the same doubles, search after search on its reused arrays (dead documents, filters, a field weighted 0, sizes that grow and shrink)', async () => {
    const random = seededRandom(7);
    for (let round = 0; round < 60; round++) {
      const docs = [50, 3_000, 400, 20_000, 10][round % 5]!;
      const weights: Fields = round % 4 === 3 ? [4, 0, 1.25, 1] : [4, 1.25, 1.25, 1];
      const terms = randomTerms(random, 1 + (round % 6), docs);
      const dead = new Set(Array.from({ length: round % 3 === 0 ? 0 : Math.ceil(docs / 20) }, () => Math.floor(random() * docs)));
      const k = 1 + (round % 40);
      const allScores = sums(terms, weights, dead);
      const filtered = round % 2 === 1;
      const allowed = (doc: number) => !filtered || doc % 3 !== 0;
      const admit = filtered ? async (asked: readonly number[]) => new Set(asked.filter(allowed)) : undefined;
      const also = [0, 1, docs - 1, ...[...dead].slice(0, 2)];
      const result = await evaluate(terms, weights, dead, k, admit, also);
      expect(result.scores, `round ${round}`).to.deep.equal(reference(allScores, k, allowed));
      expect(result.also, `round ${round}`).to.deep.equal(new Map(also.map((doc) => [doc, dead.has(doc) ? 0 : (allScores.get(doc) ?? 0)])));
    }
  });

  it('gives two evaluations that interleave at admit() the answers each gives alone', async () => {
    const random = seededRandom(11);
    const weights: Fields = [4, 1.25, 1.25, 1];
    const first = randomTerms(random, 4, 5_000);
    const second = randomTerms(random, 3, 8_000);
    const dead = new Set([3, 99, 4_000]);
    const allowed = (doc: number) => doc % 2 === 0;
    const filter = async (d: readonly number[]) => new Set(d.filter(allowed));
    const alone = [await evaluate(first, weights, dead, 25, filter), await evaluate(second, weights, dead, 25, filter)];
    // The first holds the scratch arrays while it waits for its filter; the second runs meanwhile and finishes first.
    let letFirstGo!: () => void;
    const gate = new Promise<void>((resolve) => (letFirstGo = resolve));
    const a = evaluate(first, weights, dead, 25, async (d) => {
      await gate;
      return filter(d);
    });
    const b = await evaluate(second, weights, dead, 25, filter);
    letFirstGo();
    expect([(await a).scores, b.scores]).to.deep.equal(alone.map((r) => r.scores));
  });

  it('rejects postings that are not whole records', () => {
    const term: TermPostings = { lists: [new Uint8Array(POSTING_BYTES + 3)], weight: 1, c1: 0.3, c2: 0.001 };
    expect(() => sumPostings([term], [1, 1, 1, 1], new Set())).to.throw(/not a whole number of 22-byte records/);
  });
});
