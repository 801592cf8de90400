/**
 * Retrieval metrics as BEIR reports them (binary relevance): nDCG@k and Recall@k, averaged over the queries that
 * have relevance judgements. Pure functions, unit-tested against hand-computed values.
 */

/** nDCG@k: DCG of the first k ids (gain 1/log2(rank+1) per relevant id, each counted once) over the ideal DCG. */
export function ndcgAt(k: number, ranked: readonly string[], relevant: ReadonlySet<string>): number {
  let dcg = 0;
  const seen = new Set<string>();
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id) && !seen.has(id)) dcg += 1 / Math.log2(i + 2);
    seen.add(id);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal > 0 ? dcg / ideal : 0;
}

/** Recall@k: share of the relevant ids found among the first k. 0 when nothing is relevant. */
export function recallAt(k: number, ranked: readonly string[], relevant: ReadonlySet<string>): number {
  if (relevant.size === 0) return 0;
  const found = new Set(ranked.slice(0, k).filter((id) => relevant.has(id)));
  return found.size / relevant.size;
}

export interface RunScores {
  ndcgAt10: number;
  recallAt100: number;
  /** Queries averaged over (those with judgements). */
  queries: number;
}

/**
 * Means over every judged query; a judged query missing from `runs` scores 0 (as trec_eval does with -c).
 */
export function evaluateRuns(
  runs: ReadonlyMap<string, readonly string[]>,
  qrels: ReadonlyMap<string, ReadonlySet<string>>,
): RunScores {
  let ndcg = 0;
  let recall = 0;
  let queries = 0;
  for (const [queryId, relevant] of qrels) {
    if (relevant.size === 0) continue;
    const ranked = runs.get(queryId) ?? [];
    ndcg += ndcgAt(10, ranked, relevant);
    recall += recallAt(100, ranked, relevant);
    queries++;
  }
  return queries === 0 ? { ndcgAt10: 0, recallAt100: 0, queries } : { ndcgAt10: ndcg / queries, recallAt100: recall / queries, queries };
}

/** Nearest-rank percentile (p in [0, 1]) of a list of numbers; NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(p * sorted.length)));
  return sorted[rank - 1] as number;
}
