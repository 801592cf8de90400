/**
 * Exact top-k BM25F term at a time: every posting of every query word read in one statement, each posting scored
 * straight from its bytes and added into one dense array of scores indexed by document, the k best picked with a
 * bounded heap. Hand-written because it is the core of keyword search and its cost. Block-Max MaxScore (top-k.ts)
 * can only save reading the postings whose blocks cannot reach the top k; with the eight-word OR queries people
 * type, the bounds of every document range add up above θ and it reads 99 % of the postings anyway
 * (bench:pruning), so its per-document bookkeeping (candidates gathered and sorted, partial sums, bounds, binary
 * searches) is pure overhead. Here a posting costs one decode, one division and one addition.
 *
 * Scored where they are read, not decoded into arrays first: at 100k files a query's ~90,000 postings took 2.3–2.8
 * CPU ms decoded into typed arrays and then summed, 1.6–1.8 summed from the bytes (the SciFact test queries' own
 * postings, alternated; the floor, reading only each document and adding 1, is 1.0).
 *
 * Exactness: a posting's contribution is computed by the functions scorePostings and search.ts's scorer use
 * (layout.ts: recordTf, recordLength, contribution), and the words are added in the
 * query's own order, skipping the ones a document lacks, which is the same sequence of additions as top-k.ts's
 * sum (adding 0 leaves a double unchanged): the scores are the same doubles and the ranking the same.
 */
import { view } from '../binary.js';
import { contribution, POSTING_BYTES, recordLength, recordTf, type Fields } from './layout.js';
import { LargestK } from '../largest-k.js';
import type { TopKResult, TopKStats } from './top-k.js';

/** Documents sent to admit() first, per result asked: most filters let most of the best through. */
const FIRST_ADMIT_PER_RESULT = 4;

/** One query word's postings as the terms statement returns them, and the constants of its contribution. */
export interface TermPostings {
  /** Posting records (layout.ts), each list in document order: its sealed blocks, then its unsealed tail. */
  lists: readonly (Uint8Array | null)[];
  /** weight_t, c1 and c2 of query.ts's formula: a posting adds weight·tf / (tf + c1 + c2·dl). */
  weight: number;
  c1: number;
  c2: number;
}

/** Every live document's summed score, held in the scratch arrays until termAtATimeTopK has picked from them. */
export interface Sums {
  scratch: Scratch;
  maxDoc: number;
  stats: TopKStats;
}

/**
 * Adds every posting's contribution into the scratch arrays, word by word in the query's order. Synchronous, so
 * that it can run inside the statement's reader while the reply's bytes are valid; termAtATimeTopK then picks the
 * top k and gives the arrays back.
 */
export function sumPostings(terms: readonly TermPostings[], weights: Fields, dead: ReadonlySet<number>): Sums {
  const stats: TopKStats = { rounds: 1, blocksRead: 0, postingsRead: 0, postingsTotal: 0, exactScores: 0 };
  let maxDoc = 0;
  for (const { lists } of terms) {
    for (const bytes of lists) {
      if (!bytes || bytes.byteLength === 0) continue;
      if (bytes.byteLength % POSTING_BYTES !== 0) throw new Error(`postings: ${bytes.byteLength} bytes is not a whole number of ${POSTING_BYTES}-byte records`);
      stats.postingsRead += bytes.byteLength / POSTING_BYTES;
      const last = view(bytes).getInt32(bytes.byteLength - POSTING_BYTES); // a list is in document order
      if (last > maxDoc) maxDoc = last;
    }
  }
  stats.postingsTotal = stats.postingsRead;

  const scratch = lease(maxDoc + 1, stats.postingsRead);
  const { acc, marks, touched } = scratch;
  // A dead document's sealed postings are stale: it never scores. (A tail holds live documents only.)
  for (const doc of dead) if (doc <= maxDoc) marks[doc] = DEAD;
  let count = 0;
  for (const { lists, weight, c1, c2 } of terms) {
    for (const bytes of lists) {
      if (!bytes) continue;
      const v = view(bytes);
      const end = bytes.byteLength;
      for (let at = 0; at < end; at += POSTING_BYTES) {
        // As scorePostings reads a record: a posting with no weighted match is none.
        const tf = recordTf(v, at, weights);
        if (tf === 0) continue;
        const doc = v.getInt32(at);
        const mark = marks[doc]!;
        if (mark === DEAD) continue;
        if (mark === 0) {
          marks[doc] = SEEN;
          touched[count++] = doc;
        }
        acc[doc] = acc[doc]! + contribution(weight, c1, c2, tf, recordLength(v, at, weights));
      }
    }
  }
  for (const doc of dead) if (doc <= maxDoc) marks[doc] = 0;
  scratch.count = count;
  stats.exactScores = count;
  return { scratch, maxDoc, stats };
}

/**
 * The top k of summed scores (sumPostings). `admit`: the documents among those given a result may be (filters,
 * phrases, exclusions); none: all. `scoreAlso`: documents whose exact scores are wanted whether or not they make
 * the top k or pass `admit` (the exact-name tier's files), answered in `also` (0 for one holding none of the
 * words): every score is at hand here. `within`: the only documents a result may be, known before (a rare
 * phrase's files): the others are never asked. Gives the scratch arrays back, whatever happens.
 */
export async function termAtATimeTopK(
  sums: Sums,
  k: number,
  admit?: (docs: readonly number[]) => Promise<ReadonlySet<number>>,
  scoreAlso: readonly number[] = [],
  within?: ReadonlySet<number>,
): Promise<TopKResult & { also: Map<number, number> }> {
  const { scratch, maxDoc, stats } = sums;
  const { acc, marks, touched, count } = scratch;
  try {
    const also = new Map(scoreAlso.map((doc) => [doc, doc <= maxDoc ? acc[doc]! : 0]));
    // `touched` stays whole: release() zeroes the arrays where it says.
    const docs = within ? touched.subarray(0, count).filter((doc) => within.has(doc)) : touched.subarray(0, count);
    const n = docs.length;
    if (n === 0) return { scores: new Map(), threshold: 0, stats, also };

    if (!admit) {
      const best = new LargestK(k);
      for (let i = 0; i < n; i++) best.push(acc[docs[i]!]!);
      const threshold = best.kth;
      const out = new Map<number, number>();
      for (let i = 0; i < n; i++) if (acc[docs[i]!]! >= threshold) out.set(docs[i]!, acc[docs[i]!]!);
      return { scores: out, threshold, stats, also };
    }

    // Filters, phrases, exclusions: the best documents are asked first, more while fewer than k passed. Once k did,
    // every document scoring as much as the k-th of them scores at least the M-th best, and all of those were asked.
    const admitted: number[] = [];
    const best = new LargestK(k);
    for (let m = Math.max(1, k * FIRST_ADMIT_PER_RESULT); ; m *= 4) {
      const top = new LargestK(Math.min(m, n));
      for (let i = 0; i < n; i++) top.push(acc[docs[i]!]!);
      const cut = top.kth;
      const ask: number[] = [];
      for (let i = 0; i < n; i++) {
        const doc = docs[i]!;
        if (marks[doc] !== ASKED && acc[doc]! >= cut) {
          marks[doc] = ASKED;
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
      if (admitted.length >= k || m >= n) break;
    }
    const threshold = best.kth;
    const out = new Map<number, number>();
    for (const doc of admitted) if (acc[doc]! >= threshold) out.set(doc, acc[doc]!);
    return { scores: out, threshold, stats, also };
  } finally {
    release(scratch);
  }
}

/** A document's mark in Scratch.marks: 0 not met yet. */
const SEEN = 1;
const DEAD = 2;
const ASKED = 3;

/** Per-document arrays of one evaluation, zero wherever it did not write. */
export interface Scratch {
  /** Each document's summed score. */
  acc: Float64Array;
  marks: Uint8Array;
  /** The documents met, in the order met: acc and marks were written there only (and at dead documents). */
  touched: Int32Array;
  /** How many of touched were met; -1 until the sums are complete and the dead marks cleared again. */
  count: number;
}

/**
 * One Scratch kept between evaluations, lent to one at a time and zeroed where it wrote: new arrays each search
 * (1.3 MB at 100k files, 13 MB at a million) are memory outside the heap, which counts towards the store thread's
 * small heap limit and made it collect in full every few searches (bench:search-profile with --trace-gc). An
 * evaluation that starts while another holds it (searches interleave at admit() on the PostgreSQL engine) gets
 * arrays of its own. Kept up to SCRATCH_KEPT_DOCS documents: a rare huge evaluation does not pin its arrays.
 */
let spare: Scratch | null = null;
const SCRATCH_KEPT_DOCS = 4_000_000;

function lease(docs: number, postings: number): Scratch {
  const kept = spare;
  spare = null;
  if (kept && kept.acc.length >= docs && kept.touched.length >= postings) {
    kept.count = -1;
    return kept;
  }
  // Grown with room, so a collection that grows does not replace it at every search.
  const size = Math.ceil(Math.max(docs, kept?.acc.length ?? 0) * 1.25);
  return {
    acc: new Float64Array(size),
    marks: new Uint8Array(size),
    touched: new Int32Array(Math.ceil(Math.max(postings, kept?.touched.length ?? 0) * 1.25)),
    count: -1,
  };
}

function release(scratch: Scratch): void {
  const { acc, marks, touched, count } = scratch;
  if (count < 0) return; // interrupted while summing: where it wrote is unknown, so it is not kept
  for (let i = 0; i < count; i++) {
    const doc = touched[i]!;
    acc[doc] = 0;
    marks[doc] = 0;
  }
  scratch.count = 0;
  if (acc.length <= SCRATCH_KEPT_DOCS) spare = scratch;
}
