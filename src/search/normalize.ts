/**
 * Score normalisation for fusing ranked lists whose scores live on different scales (BM25 is unbounded and
 * depends on the query). Pure functions over [id, score] lists; the order of the list is kept.
 */

export type ScoredId = readonly [id: number, score: number];

/**
 * Divides by the best score: the best becomes 1 and every positive score stays positive (unlike min-max, which
 * maps the weakest match to 0 as if it matched nothing). A list whose best score is ≤ 0 carries no positive
 * evidence: all zeros.
 */
export function normalizeMax(hits: readonly ScoredId[]): ScoredId[] {
  let max = -Infinity;
  for (const [, s] of hits) max = Math.max(max, s);
  if (!(max > 0)) return hits.map(([id]) => [id, 0] as const);
  return hits.map(([id, s]) => [id, s / max] as const);
}
