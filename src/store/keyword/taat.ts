/**
 * Exact top-k BM25F term at a time: every posting of every query word read in one statement, each posting's
 * contribution added into one dense array of scores indexed by document, the k best picked with a bounded heap.
 * Hand-written because it is the core of keyword search and its cost. Block-Max MaxScore (top-k.ts) can only save
 * reading the postings whose blocks cannot reach the top k; with the eight-word OR queries people type, the bounds
 * of every document range add up above θ and it reads 99 % of the postings anyway (bench:pruning), so its
 * per-document bookkeeping (candidates gathered and sorted, partial sums, bounds, binary searches) is pure
 * overhead. Here a posting costs one addition.
 *
 * Exactness: the words are added in the query's own order, skipping the ones a document lacks, which is the
 * same sequence of additions as top-k.ts's sum (adding 0 leaves a double unchanged), so the scores are the same
 * doubles and the ranking the same.
 */
import type { ScoredPostings } from './layout.js';
import { LargestK, type TopKResult, type TopKStats } from './top-k.js';

/** Documents sent to admit() first, per result asked: most filters let most of the best through. */
const FIRST_ADMIT_PER_RESULT = 4;

/**
 * `terms`: per query word, in the query's order, its scored postings (sealed blocks and tail, each in document
 * order). `admit`: the documents among those given a result may be (filters, phrases, exclusions); none: all.
 * `scoreAlso`: documents whose exact scores are wanted whether or not they make the top k or pass `admit` (the
 * exact-name tier's files), answered in `also` (0 for one holding none of the words): every score is at hand here.
 */
export async function termAtATimeTopK(
  terms: readonly (readonly ScoredPostings[])[],
  dead: ReadonlySet<number>,
  k: number,
  admit?: (docs: readonly number[]) => Promise<ReadonlySet<number>>,
  scoreAlso: readonly number[] = [],
): Promise<TopKResult & { also: Map<number, number> }> {
  const stats: TopKStats = { rounds: 1, blocksRead: 0, postingsRead: 0, postingsTotal: 0, exactScores: 0 };
  let maxDoc = 0;
  for (const lists of terms) {
    for (const { docs } of lists) {
      stats.postingsRead += docs.length;
      if (docs.length > 0 && docs[docs.length - 1]! > maxDoc) maxDoc = docs[docs.length - 1]!;
    }
  }
  stats.postingsTotal = stats.postingsRead;

  // A dead document's sealed postings are stale: it never scores. (A tail holds live documents only.)
  const isDead = new Uint8Array(maxDoc + 1);
  for (const doc of dead) if (doc <= maxDoc) isDead[doc] = 1;
  const acc = new Float64Array(maxDoc + 1);
  const seen = new Uint8Array(maxDoc + 1);
  const touched = new Int32Array(stats.postingsRead);
  let count = 0;
  for (const lists of terms) {
    for (const { docs, scores } of lists) {
      for (let i = 0; i < docs.length; i++) {
        const doc = docs[i]!;
        if (isDead[doc]) continue;
        if (!seen[doc]) {
          seen[doc] = 1;
          touched[count++] = doc;
        }
        acc[doc] = acc[doc]! + scores[i]!;
      }
    }
  }
  stats.exactScores = count;
  const docs = touched.subarray(0, count);
  const also = new Map(scoreAlso.map((doc) => [doc, doc <= maxDoc ? acc[doc]! : 0]));
  if (count === 0) return { scores: new Map(), threshold: 0, stats, also };

  if (!admit) {
    const best = new LargestK(k);
    for (let i = 0; i < count; i++) best.push(acc[docs[i]!]!);
    const threshold = best.kth;
    const out = new Map<number, number>();
    for (let i = 0; i < count; i++) if (acc[docs[i]!]! >= threshold) out.set(docs[i]!, acc[docs[i]!]!);
    return { scores: out, threshold, stats, also };
  }

  // Filters, phrases, exclusions: the best documents are asked first, more while fewer than k passed. Once k did,
  // every document scoring as much as the k-th of them scores at least the M-th best, and all of those were asked.
  const asked = new Uint8Array(maxDoc + 1);
  const admitted: number[] = [];
  const best = new LargestK(k);
  for (let m = Math.max(1, k * FIRST_ADMIT_PER_RESULT); ; m *= 4) {
    const top = new LargestK(Math.min(m, count));
    for (let i = 0; i < count; i++) top.push(acc[docs[i]!]!);
    const cut = top.kth;
    const ask: number[] = [];
    for (let i = 0; i < count; i++) {
      const doc = docs[i]!;
      if (!asked[doc] && acc[doc]! >= cut) {
        asked[doc] = 1;
        ask.push(doc);
      }
    }
    if (ask.length > 0) {
      stats.rounds++;
      const allowed = await admit(ask);
      for (const doc of ask) {
        if (!allowed.has(doc)) continue;
        admitted.push(doc);
        best.push(acc[doc]!);
      }
    }
    if (admitted.length >= k || m >= count) break;
  }
  const threshold = best.kth;
  const out = new Map<number, number>();
  for (const doc of admitted) if (acc[doc]! >= threshold) out.set(doc, acc[doc]!);
  return { scores: out, threshold, stats, also };
}
