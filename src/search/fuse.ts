/**
 * Hybrid fusion: relevance = w_sem · norm(semantic) + w_kw · norm(keyword), the API's
 * "semantic_score + keyword_score" with each side normalised so neither drowns the other. A weighted score sum
 * measured far better here than reciprocal-rank fusion (k=60: nDCG@10 0.38–0.48 against 0.68 on SciFact).
 * Pure, on [id, score] lists.
 */
import { normalizeScores, type Normalization, type ScoredId } from './normalize.js';

export interface FusionSide {
  weight: number;
  normalization: Normalization;
  /**
   * What an id this side did not return contributes, after normalisation: `zero`, or `floor` = the lowest
   * normalised score the side did return (a top-k list was cut somewhere below that). Use `zero` for a side
   * that returns every match (keyword: a file it did not return has no query term, BM25 0).
   */
  missing: 'zero' | 'floor';
}

export interface FusionOptions {
  semantic: FusionSide;
  keyword: FusionSide;
}

/**
 * Chosen on SciFact train (bench/ranking-experiment.ts, bench/ranking-results.md) with the built-in static embedder and
 * DEFAULT_KEYWORD_RANKING: test nDCG@10 0.6961 against 0.6923 for keyword alone (R@100 0.914 against 0.920).
 * The static embedder is weak alone (0.34), so it only nudges; re-tune when the transformer is active.
 */
export const DEFAULT_FUSION: Readonly<FusionOptions> = Object.freeze({
  semantic: Object.freeze({ weight: 0.1, normalization: 'min-max', missing: 'zero' }),
  keyword: Object.freeze({ weight: 0.9, normalization: 'min-max', missing: 'zero' }),
});

export interface FusedHit {
  id: number;
  /** The relevance score: descending along the returned order; always semanticPart + keywordPart. */
  score: number;
  /** This side's share of the score: weight × normalised score. */
  semanticPart: number;
  /** The keyword side's share, including the exact-file-name tier bonus (a keyword match on the name). */
  keywordPart: number;
  /** The side's own score before normalisation; null when the side did not return the id. */
  semantic: number | null;
  keyword: number | null;
  /** Exact-file-name tier (2 = whole name, 1 = name without extension, 0 = none): higher tiers come first. */
  tier: number;
}

function sideScores(hits: readonly ScoredId[], side: FusionSide): { scores: Map<number, number>; missing: number } {
  const normalised = normalizeScores(hits, side.normalization);
  const scores = new Map<number, number>();
  let floor = Infinity;
  for (const [id, s] of normalised) {
    // A list may name an id twice (e.g. one row per chunk): keep its best score.
    scores.set(id, Math.max(scores.get(id) ?? -Infinity, s));
    floor = Math.min(floor, s);
  }
  return { scores, missing: side.missing === 'floor' && Number.isFinite(floor) ? floor : 0 };
}

function bestRaw(hits: readonly ScoredId[]): Map<number, number> {
  const raw = new Map<number, number>();
  for (const [id, s] of hits) raw.set(id, Math.max(raw.get(id) ?? -Infinity, s));
  return raw;
}

/**
 * Fuses the two lists; every id of either list (and of `tiers`) appears once. Ordered by tier, then fused
 * score, then id (deterministic). Tiered ids get their fused score plus tier × (2·max|fused| + 1), so the
 * relevance score itself falls along the order, as the API promises ("sorted by relevance_score descending").
 */
export function fuseScores(
  semantic: readonly ScoredId[],
  keyword: readonly ScoredId[],
  options: FusionOptions,
  tiers: ReadonlyMap<number, number> = new Map(),
): FusedHit[] {
  const sem = sideScores(semantic, options.semantic);
  const kw = sideScores(keyword, options.keyword);
  const semRaw = bestRaw(semantic);
  const kwRaw = bestRaw(keyword);
  const ids = new Set<number>([...sem.scores.keys(), ...kw.scores.keys(), ...tiers.keys()]);

  const hits: FusedHit[] = [];
  let maxAbs = 0;
  for (const id of ids) {
    const semanticPart = options.semantic.weight * (sem.scores.get(id) ?? sem.missing);
    const keywordPart = options.keyword.weight * (kw.scores.get(id) ?? kw.missing);
    const score = semanticPart + keywordPart;
    maxAbs = Math.max(maxAbs, Math.abs(score));
    hits.push({ id, score, semanticPart, keywordPart, semantic: semRaw.get(id) ?? null, keyword: kwRaw.get(id) ?? null, tier: tiers.get(id) ?? 0 });
  }
  const tierStep = 2 * maxAbs + 1;
  for (const hit of hits) {
    if (hit.tier === 0) continue;
    hit.keywordPart += hit.tier * tierStep;
    hit.score = hit.semanticPart + hit.keywordPart;
  }
  return hits.sort((a, b) => b.tier - a.tier || b.score - a.score || a.id - b.id);
}
