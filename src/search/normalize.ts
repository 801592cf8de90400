/**
 * Score normalisations for fusing ranked lists whose scores live on different scales (BM25 is unbounded and
 * depends on the query; cosine is in [-1, 1]). Pure functions over [id, score] lists, after Orama's
 * minMaxScoreNormalization. The order of the list is kept.
 */

export type ScoredId = readonly [id: number, score: number];

/**
 * - `none`: scores as they are;
 * - `max`: score / best score (the best becomes 1, zero stays zero: a weak list stays weak relative to 0);
 * - `min-max`: (score − worst) / (best − worst) (the worst becomes 0; a single hit, or all equal, becomes 1).
 */
export type Normalization = 'none' | 'max' | 'min-max';

export const NORMALIZATIONS: readonly Normalization[] = ['none', 'max', 'min-max'];

/** Divides by the best score. A list whose best score is ≤ 0 carries no positive evidence: all zeros. */
export function normalizeMax(hits: readonly ScoredId[]): ScoredId[] {
  let max = -Infinity;
  for (const [, s] of hits) max = Math.max(max, s);
  if (!(max > 0)) return hits.map(([id]) => [id, 0] as const);
  return hits.map(([id, s]) => [id, s / max] as const);
}

/** Maps the worst score to 0 and the best to 1. All-equal lists (including one hit) map to 1. */
export function normalizeMinMax(hits: readonly ScoredId[]): ScoredId[] {
  let max = -Infinity;
  let min = Infinity;
  for (const [, s] of hits) {
    max = Math.max(max, s);
    min = Math.min(min, s);
  }
  const range = max - min;
  if (!(range > 0)) return hits.map(([id]) => [id, 1] as const);
  return hits.map(([id, s]) => [id, (s - min) / range] as const);
}

export function normalizeScores(hits: readonly ScoredId[], method: Normalization): ScoredId[] {
  switch (method) {
    case 'none':
      return hits.map(([id, s]) => [id, s] as const);
    case 'max':
      return normalizeMax(hits);
    case 'min-max':
      return normalizeMinMax(hits);
  }
}
