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

function kthLargest(values: Iterable<number>, k: number): number {
  const sorted = Float64Array.from(values).sort();
  return sorted.length >= k ? sorted[sorted.length - k]! : 0;
}

function below(bound: number, threshold: number): boolean {
  return bound < threshold - MARGIN * Math.max(1, threshold);
}

/** The block of `blocks` (sorted, disjoint) whose range holds `doc`, or -1. */
function blockIndexOf(blocks: readonly BlockRange[], doc: number): number {
  let lo = 0;
  let hi = blocks.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const b = blocks[mid]!;
    if (b.last < doc) lo = mid + 1;
    else if (b.first > doc) hi = mid - 1;
    else return mid;
  }
  return -1;
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
  const scores = new Map<number, number>();
  /** Documents whose fate is sealed: scored, refused by admit(), or dropped on their bound. */
  const decided = new Set<number>();
  const fetched = new Map<string, ScoredPostings>();
  const keyOf = (term: number, index: number): string => `${term}:${index}`;
  const exact = (contributions: Float64Array): number => {
    let sum = 0;
    for (let t = 0; t < T; t++) sum += contributions[t]!;
    return sum;
  };
  const admitted = async (docs: number[]): Promise<ReadonlySet<number> | null> => (docs.length > 0 && source.admit ? source.admit(docs) : null);

  for (const term of terms) {
    stats.postingsTotal += term.tail.docs.length;
    for (const b of term.blocks) stats.postingsTotal += b.n;
  }

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
  const tailAdmitted = await admitted([...tailDocs.keys()]);
  for (const [doc, c] of tailDocs) {
    decided.add(doc);
    if (!tailAdmitted || tailAdmitted.has(doc)) scores.set(doc, exact(c));
  }

  const ub = terms.map((term) => term.blocks.reduce((max, b) => Math.max(max, b.ub), 0));
  const order = [...terms.keys()].sort((a, b) => ub[b]! - ub[a]! || a - b);
  const read = async (requests: BlockRequest[]): Promise<void> => {
    const wanted = requests.filter((r) => !fetched.has(keyOf(r.term, r.block)));
    if (wanted.length === 0) return;
    const blocks = await source.fetch(wanted);
    wanted.forEach((r, i) => {
      const postings = blocks[i]!;
      fetched.set(keyOf(r.term, r.block), postings);
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
  let threshold = kthLargest(scores.values(), k);
  while (processed < essential) {
    stats.rounds++;
    const fresh = order.slice(processed, essential);
    await read(fresh.flatMap((t) => terms[t]!.blocks.map((_, index) => ({ term: t, block: index }))));

    // 1. Candidates: the sealed documents of the new essential terms not decided yet.
    const candidates = new Map<number, Float64Array>();
    for (const t of fresh) {
      terms[t]!.blocks.forEach((_, index) => {
        const postings = fetched.get(keyOf(t, index))!;
        for (let i = 0; i < postings.docs.length; i++) {
          const doc = postings.docs[i]!;
          if (decided.has(doc) || dead.has(doc)) continue;
          let c = candidates.get(doc);
          if (!c) candidates.set(doc, (c = new Float64Array(T).fill(Number.NaN)));
          c[t] = postings.scores[i]!;
        }
      });
    }
    // A candidate holds no term essential before (it would have been a candidate then), and 0 of a fresh one it lacks.
    for (const c of candidates.values()) for (const t of order.slice(0, essential)) if (Number.isNaN(c[t])) c[t] = 0;
    const allowed = await admitted([...candidates.keys()]);
    if (allowed) {
      for (const doc of candidates.keys()) {
        if (!allowed.has(doc)) {
          candidates.delete(doc);
          decided.add(doc);
        }
      }
    }

    // 2. Bounds: partial score plus the bounds of the blocks of the other terms that could hold the document.
    const others = order.slice(essential);
    const partial = (c: Float64Array): number => {
      let sum = 0;
      for (let t = 0; t < T; t++) if (!Number.isNaN(c[t])) sum += c[t]!;
      return sum;
    };
    const lowerBound = Math.max(threshold, kthLargest([...scores.values(), ...[...candidates.values()].map(partial)], k));
    const needed: BlockRequest[] = [];
    for (const [doc, c] of candidates) {
      let bound = partial(c);
      for (const t of others) {
        const index = blockIndexOf(terms[t]!.blocks, doc);
        if (index < 0) c[t] = 0;
        else bound += terms[t]!.blocks[index]!.ub;
      }
      if (below(bound, lowerBound)) {
        candidates.delete(doc);
        decided.add(doc);
        continue;
      }
      for (const t of others) if (Number.isNaN(c[t])) needed.push({ term: t, block: blockIndexOf(terms[t]!.blocks, doc) });
    }
    const unique = new Map(needed.map((r) => [keyOf(r.term, r.block), r]));
    await read([...unique.values()]);

    // 3. Exact scores, then a higher θ; more essential terms while the others could still add up to it.
    for (const [doc, c] of candidates) {
      for (const t of others) if (Number.isNaN(c[t])) c[t] = lookup(fetched.get(keyOf(t, blockIndexOf(terms[t]!.blocks, doc)))!, doc);
      scores.set(doc, exact(c));
      decided.add(doc);
      stats.exactScores++;
    }
    threshold = kthLargest(scores.values(), k);
    processed = essential;
    let rest = others.reduce((sum, t) => sum + ub[t]!, 0);
    while (essential < T && !below(rest, threshold)) rest -= ub[order[essential++]!]!;
  }
  return { scores, threshold, stats };
}
