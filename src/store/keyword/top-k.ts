/**
 * Exact top-k BM25F over the block index: Block-Max MaxScore (Turtle & Flood's MaxScore with Ding & Suel's
 * per-block maxima), arranged for a database one round trip away. Hand-written because it is the core of keyword
 * search and its cost: no library scores our blocks, and the per-posting work must stay a few nanoseconds.
 *
 * A document's score is the sum of its terms' contributions. Sorting the terms by their highest block bound, the
 * "essential" ones are the fewest high-bound terms such that the bounds of all the others add up to less than θ,
 * the k-th best score found so far: a document that contains no essential term cannot reach the top k. So:
 *   1. every posting of the essential terms is read: their documents are the candidates, with partial scores;
 *   2. a candidate whose partial score plus the bounds of the other terms' blocks that could hold it stays below
 *      θ is dropped; for the rest, exactly those blocks are read and the score completed;
 *   3. θ rises to the k-th best exact score; while the other terms' bounds still add up to θ or more, the next
 *      term becomes essential and 1-3 repeat for the documents it brings.
 * Reads happen in rounds (all blocks one step needs in one request), usually two to four per query. Pruning is
 * safe: a document is only ever dropped on an upper bound below a score that k admitted documents reach.
 *
 * Exactness: a document's score is summed over the terms in the query's own order whatever order the rounds found
 * them in, so it is always the same double; bounds are compared with a small relative margin, so rounding in a
 * bound never drops a document that ties the k-th score.
 */
import { LargestK } from '../largest-k.js';
import type { ScoredPostings } from './layout.js';

/** A block as the evaluator sees it: its doc range (the first document names it) and the bound of any contribution. */
export interface BlockRange {
  first: number;
  last: number;
  /** Postings in the block (dead ones included). */
  n: number;
  ub: number;
}

export interface EvalTerm {
  /** Sealed blocks in doc order. */
  blocks: readonly BlockRange[];
  /** Postings of unsealed documents, scored: known without reading blocks (every one is above the sealed range). */
  tail: ScoredPostings;
}

export interface BlockRequest {
  term: number;
  /** The block's position in its term's list. */
  block: number;
}

export interface BlockSource {
  /** The scored postings of each requested block (its position in its term's list), in request order. */
  fetch(requests: readonly BlockRequest[]): Promise<ScoredPostings[]>;
  /** The documents among `docs` a result may be (filters, phrases, exclusions); absent when every document may. */
  admit?(docs: readonly number[]): Promise<ReadonlySet<number>>;
}

export interface TopKStats {
  rounds: number;
  blocksRead: number;
  postingsRead: number;
  /** Postings the query's terms have in all (what an exhaustive evaluation reads). */
  postingsTotal: number;
  exactScores: number;
}

export interface TopKResult {
  /** Exact scores of admitted documents: every document scoring at least the k-th best is among them. */
  scores: Map<number, number>;
  /** The k-th best score (0 when fewer than k documents match). */
  threshold: number;
  stats: TopKStats;
}

/** Relative margin on bound comparisons: far above rounding error, far below any real score difference. */
const MARGIN = 1e-9;
/** Postings the first essential terms should have at least, per result asked: enough candidates for a real θ. */
const SEED_POSTINGS_PER_RESULT = 4;

function below(bound: number, threshold: number): boolean {
  return bound < threshold - MARGIN * Math.max(1, threshold);
}

/** One bit per document ordinal: documents are dense small integers, so a bitset beats a Set by far. */
class DocSet {
  readonly #words: Uint32Array;
  constructor(maxDoc: number) {
    this.#words = new Uint32Array((maxDoc >>> 5) + 1);
  }

  has(doc: number): boolean {
    return ((this.#words[doc >>> 5]! >>> (doc & 31)) & 1) === 1;
  }

  add(doc: number): void {
    this.#words[doc >>> 5]! |= 1 << (doc & 31);
  }
}

/** The score of `doc` in sorted postings, or 0 when absent. */
function lookup(postings: ScoredPostings, doc: number): number {
  let lo = 0;
  let hi = postings.docs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const d = postings.docs[mid]!;
    if (d < doc) lo = mid + 1;
    else if (d > doc) hi = mid - 1;
    else return postings.scores[mid]!;
  }
  return 0;
}

/** The sorted distinct values of `docs` (an array it may reorder). */
function sortedDistinct(docs: Int32Array): Int32Array {
  docs.sort();
  let n = 0;
  for (let i = 0; i < docs.length; i++) if (i === 0 || docs[i] !== docs[i - 1]) docs[n++] = docs[i]!;
  return docs.subarray(0, n);
}

export interface TopKOptions {
  /** Read every block of every term and score every document: the baseline the pruning is measured against. */
  exhaustive?: boolean;
}

export async function blockMaxTopK(
  terms: readonly EvalTerm[],
  dead: ReadonlySet<number>,
  k: number,
  source: BlockSource,
  options: TopKOptions = {},
): Promise<TopKResult> {
  const T = terms.length;
  const stats: TopKStats = { rounds: 0, blocksRead: 0, postingsRead: 0, postingsTotal: 0, exactScores: 0 };
  /** Exact scores of admitted documents, in the order found, and the k best of them. */
  const scoredDocs: number[] = [];
  const scoredValues: number[] = [];
  const best = new LargestK(k);
  const record = (doc: number, score: number): void => {
    scoredDocs.push(doc);
    scoredValues.push(score);
    best.push(score);
  };
  /** Per term, the scored postings of each block read so far (by the block's position). */
  const fetched: (ScoredPostings | undefined)[][] = terms.map((term) => new Array<ScoredPostings | undefined>(term.blocks.length));
  const admitted = async (docs: Int32Array): Promise<ReadonlySet<number> | null> => (docs.length > 0 && source.admit ? source.admit([...docs]) : null);

  let maxDoc = 0;
  for (const term of terms) {
    stats.postingsTotal += term.tail.docs.length;
    for (const b of term.blocks) {
      stats.postingsTotal += b.n;
      if (b.last > maxDoc) maxDoc = b.last;
    }
    for (const doc of term.tail.docs) if (doc > maxDoc) maxDoc = doc;
  }
  /** Documents whose fate is sealed: scored, refused by admit(), dropped on their bound, or dead. */
  const decided = new DocSet(maxDoc);

  // Unsealed documents: every posting they have is in the tails, so their scores are exact at once.
  const tailDocs = new Map<number, Float64Array>();
  terms.forEach((term, t) => {
    for (let i = 0; i < term.tail.docs.length; i++) {
      const doc = term.tail.docs[i]!;
      let c = tailDocs.get(doc);
      if (!c) tailDocs.set(doc, (c = new Float64Array(T)));
      c[t] = term.tail.scores[i]!;
    }
  });
  const tailAdmitted = await admitted(Int32Array.from(tailDocs.keys()));
  for (const [doc, c] of tailDocs) {
    decided.add(doc);
    if (!tailAdmitted || tailAdmitted.has(doc)) {
      let sum = 0;
      for (let t = 0; t < T; t++) sum += c[t]!;
      record(doc, sum);
    }
  }
  // A dead document's sealed postings are stale: it is never a candidate.
  for (const doc of dead) if (doc <= maxDoc) decided.add(doc);

  const ub = terms.map((term) => term.blocks.reduce((max, b) => Math.max(max, b.ub), 0));
  const order = [...terms.keys()].sort((a, b) => ub[b]! - ub[a]! || a - b);
  const read = async (requests: BlockRequest[]): Promise<void> => {
    const wanted = requests.filter((r) => fetched[r.term]![r.block] === undefined);
    if (wanted.length === 0) return;
    const blocks = await source.fetch(wanted);
    wanted.forEach((r, i) => {
      const postings = blocks[i]!;
      fetched[r.term]![r.block] = postings;
      stats.blocksRead++;
      stats.postingsRead += postings.docs.length;
    });
  };

  // The first essential terms: the highest bounds, with enough postings to give θ a meaning.
  let essential = options.exhaustive ? T : 0;
  for (let seeded = 0; essential < T && (essential === 0 || seeded < SEED_POSTINGS_PER_RESULT * k); essential++) {
    seeded += terms[order[essential]!]!.blocks.reduce((n, b) => n + b.n, 0);
  }
  let processed = 0;
  let threshold = best.kth;
  while (processed < essential) {
    stats.rounds++;
    const fresh = order.slice(processed, essential);
    await read(fresh.flatMap((t) => terms[t]!.blocks.map((_, index) => ({ term: t, block: index }))));

    // 1. Candidates: the sealed documents of the new essential terms not decided yet, in doc order (slot = rank).
    let count = 0;
    for (const t of fresh) for (const postings of fetched[t]!) count += postings!.docs.length;
    const gathered = new Int32Array(count);
    count = 0;
    for (const t of fresh) {
      for (const postings of fetched[t]!) {
        for (const doc of postings!.docs) if (!decided.has(doc)) gathered[count++] = doc;
      }
    }
    const docs = sortedDistinct(gathered.subarray(0, count));
    const n = docs.length;
    // contributions[slot·T + t]: NaN while unknown.
    const contributions = new Float64Array(n * T).fill(Number.NaN);
    for (const t of fresh) {
      // A term's postings are sorted by doc across its blocks: one merge with the sorted candidates.
      let slot = 0;
      for (const postings of fetched[t]!) {
        const pd = postings!.docs;
        for (let i = 0; i < pd.length && slot < n; i++) {
          const doc = pd[i]!;
          while (slot < n && docs[slot]! < doc) slot++;
          if (slot < n && docs[slot] === doc) contributions[slot * T + t] = postings!.scores[i]!;
        }
      }
    }
    // A candidate holds no term essential before (it would have been a candidate then), and 0 of a fresh one it lacks.
    for (let slot = 0; slot < n; slot++) {
      for (let e = 0; e < essential; e++) {
        const at = slot * T + order[e]!;
        if (Number.isNaN(contributions[at])) contributions[at] = 0;
      }
    }
    const alive = new Uint8Array(n).fill(1);
    const allowed = await admitted(docs);
    if (allowed) {
      for (let slot = 0; slot < n; slot++) {
        if (!allowed.has(docs[slot]!)) {
          alive[slot] = 0;
          decided.add(docs[slot]!);
        }
      }
    }

    // 2. Bounds: partial score plus the bounds of the blocks of the other terms that could hold the document.
    const others = order.slice(essential);
    const bounds = new Float64Array(n);
    const lower = best.copy();
    for (let slot = 0; slot < n; slot++) {
      if (!alive[slot]) continue;
      let sum = 0;
      for (let t = 0; t < T; t++) {
        const c = contributions[slot * T + t]!;
        if (!Number.isNaN(c)) sum += c;
      }
      bounds[slot] = sum;
      lower.push(sum);
    }
    const lowerBound = Math.max(threshold, lower.kth);
    // blockOf[o·n + slot]: the block of others[o] whose range holds the candidate, or -1.
    const blockOf = new Int32Array(others.length * n);
    others.forEach((t, o) => {
      const blocks = terms[t]!.blocks;
      let b = 0;
      for (let slot = 0; slot < n; slot++) {
        const doc = docs[slot]!;
        while (b < blocks.length && blocks[b]!.last < doc) b++;
        const index = b < blocks.length && blocks[b]!.first <= doc ? b : -1;
        blockOf[o * n + slot] = index;
        if (!alive[slot]) continue;
        if (index < 0) contributions[slot * T + t] = 0;
        else bounds[slot] = bounds[slot]! + blocks[index]!.ub;
      }
    });
    const requested = others.map((t) => new Uint8Array(terms[t]!.blocks.length));
    const needed: BlockRequest[] = [];
    for (let slot = 0; slot < n; slot++) {
      if (!alive[slot]) continue;
      if (below(bounds[slot]!, lowerBound)) {
        alive[slot] = 0;
        decided.add(docs[slot]!);
        continue;
      }
      others.forEach((t, o) => {
        const index = blockOf[o * n + slot]!;
        if (Number.isNaN(contributions[slot * T + t]) && !requested[o]![index]) {
          requested[o]![index] = 1;
          needed.push({ term: t, block: index });
        }
      });
    }
    await read(needed);

    // 3. Exact scores, then a higher θ; more essential terms while the others could still add up to it.
    for (let slot = 0; slot < n; slot++) {
      if (!alive[slot]) continue;
      const doc = docs[slot]!;
      others.forEach((t, o) => {
        const at = slot * T + t;
        if (Number.isNaN(contributions[at])) contributions[at] = lookup(fetched[t]![blockOf[o * n + slot]!]!, doc);
      });
      let sum = 0;
      for (let t = 0; t < T; t++) sum += contributions[slot * T + t]!;
      record(doc, sum);
      decided.add(doc);
      stats.exactScores++;
    }
    threshold = best.kth;
    processed = essential;
    let rest = others.reduce((sum, t) => sum + ub[t]!, 0);
    while (essential < T && !below(rest, threshold)) rest -= ub[order[essential++]!]!;
  }
  // Only what can be in the top k: every document scoring at least the k-th best (ties included).
  const scores = new Map<number, number>();
  for (let i = 0; i < scoredDocs.length; i++) if (scoredValues[i]! >= threshold) scores.set(scoredDocs[i]!, scoredValues[i]!);
  return { scores, threshold, stats };
}
