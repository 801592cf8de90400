/**
 * termAtATimeTopK on its own: the same answers as summing every posting by hand, whatever the scratch arrays it
 * reuses between evaluations held before (dead documents, filters that ask again), and when two evaluations
 * interleave at admit(), as concurrent searches do on the PostgreSQL engine.
 */
import { expect } from 'chai';
import { seededRandom } from '../../../scripts/lib/seeded-random.js';
import type { ScoredPostings } from '../../../src/store/keyword/layout.js';
import { termAtATimeTopK } from '../../../src/store/keyword/taat.js';

type Terms = ScoredPostings[][];

/** Random postings: per term a block list and a tail, each in document order, scores in (0, 1]. */
function randomTerms(random: () => number, terms: number, docs: number): Terms {
  return Array.from({ length: terms }, () => {
    const lists: ScoredPostings[] = [];
    for (let part = 0; part < 2; part++) {
      const picked = [...new Set(Array.from({ length: Math.floor(random() * docs * 0.3) }, () => Math.floor(random() * docs)))].sort((a, b) => a - b);
      lists.push({ docs: Int32Array.from(picked), scores: Float64Array.from(picked, () => 0.001 + random()) });
    }
    return lists;
  });
}

/** Every live document's sum, added in the terms' order as the evaluator adds them. */
function sums(terms: Terms, dead: ReadonlySet<number>): Map<number, number> {
  const out = new Map<number, number>();
  for (const lists of terms) {
    for (const { docs, scores } of lists) {
      docs.forEach((doc, i) => {
        if (!dead.has(doc)) out.set(doc, (out.get(doc) ?? 0) + scores[i]!);
      });
    }
  }
  return out;
}

/** The reference answer: of the documents `allowed` lets through, those scoring at least the k-th best. */
function reference(terms: Terms, dead: ReadonlySet<number>, k: number, allowed: (doc: number) => boolean): Map<number, number> {
  const all = [...sums(terms, dead)].filter(([doc]) => allowed(doc));
  const sorted = all.map(([, s]) => s).sort((a, b) => b - a);
  const threshold = sorted.length >= k ? sorted[k - 1]! : Number.NEGATIVE_INFINITY;
  return new Map(all.filter(([, s]) => s >= threshold));
}

describe('termAtATimeTopK', () => {
  it('answers the hand-summed top k, search after search on its reused arrays (dead documents, filters, sizes that grow and shrink)', async () => {
    const random = seededRandom(7);
    for (let round = 0; round < 60; round++) {
      const docs = [50, 3_000, 400, 20_000, 10][round % 5]!;
      const terms = randomTerms(random, 1 + (round % 6), docs);
      const dead = new Set(Array.from({ length: round % 3 === 0 ? 0 : Math.ceil(docs / 20) }, () => Math.floor(random() * docs)));
      const k = 1 + (round % 40);
      const allScores = sums(terms, dead);
      const filtered = round % 2 === 1;
      const allowed = (doc: number) => !filtered || doc % 3 !== 0;
      const admit = filtered ? async (asked: readonly number[]) => new Set(asked.filter(allowed)) : undefined;
      const also = [0, 1, docs - 1, ...[...dead].slice(0, 2)];
      const result = await termAtATimeTopK(terms, dead, k, admit, also);
      expect(result.scores, `round ${round}`).to.deep.equal(reference(terms, dead, k, allowed));
      expect(result.also, `round ${round}`).to.deep.equal(new Map(also.map((doc) => [doc, dead.has(doc) ? 0 : (allScores.get(doc) ?? 0)])));
    }
  });

  it('gives two evaluations that interleave at admit() the answers each gives alone', async () => {
    const random = seededRandom(11);
    const first = randomTerms(random, 4, 5_000);
    const second = randomTerms(random, 3, 8_000);
    const dead = new Set([3, 99, 4_000]);
    const allowed = (doc: number) => doc % 2 === 0;
    const alone = [await termAtATimeTopK(first, dead, 25, async (d) => new Set(d.filter(allowed))), await termAtATimeTopK(second, dead, 25, async (d) => new Set(d.filter(allowed)))];
    // The first holds the scratch arrays while it waits for its filter; the second runs meanwhile and finishes first.
    let letFirstGo!: () => void;
    const gate = new Promise<void>((resolve) => (letFirstGo = resolve));
    const a = termAtATimeTopK(first, dead, 25, async (d) => {
      await gate;
      return new Set(d.filter(allowed));
    });
    const b = await termAtATimeTopK(second, dead, 25, async (d) => new Set(d.filter(allowed)));
    letFirstGo();
    expect([(await a).scores, b.scores]).to.deep.equal(alone.map((r) => r.scores));
  });
});
