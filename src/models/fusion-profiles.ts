/**
 * How each embedding model's cosines fuse with BM25 in a hybrid search (the formula: search/fuse.ts), stored with
 * the model's identity. Cosines live on a different scale for every model (bge-small's unrelated pairs score
 * ~0.35, MiniLM's ~0.05), so the floor and the weights are chosen per model, on SciFact *train* only, by
 * `npm run bench:fusion` (bench/fusion-experiment.ts; results in bench/ranking-results.md). The settings
 * `search.semantic_weight` / `search.keyword_weight` override the weights when a user sets them.
 */

/** One model's fusion: see search/fuse.ts for the formula. */
export interface FusionProfile {
  /** Weight of the semantic side. */
  semanticWeight: number;
  /** Weight of the keyword side. */
  keywordWeight: number;
  /** Share of the keyword side that matching any query word earns by itself (0–1). */
  matchBonus: number;
  /** Cosine at which the semantic side starts to count; a file with no query word below it is left out. */
  floor: number;
}

/** The cosine from which a file without any query word can outrank one with a query word (> 1: never). */
export function strongCosine(p: FusionProfile): number {
  if (!(p.semanticWeight > 0)) return Infinity;
  return p.floor + ((1 - p.floor) * p.keywordWeight * p.matchBonus) / p.semanticWeight;
}

/**
 * By embedder identity (`kind:model`, as files record it in `embedding_model`), each measured by `npm run
 * bench:fusion` on SciFact train (2026-11-24; floor = p5 of train relevant cosines; weights and bonus the best train
 * nDCG@10 keeping keyword's R@100 and a strong cosine at least the median relevant cosine). Test figures, against
 * keyword 0.6923 / R@100 0.9202: built-in 0.6941 / 0.9203; MiniLM (int8) 0.7270 / 0.9310 (semantic alone 0.6667);
 * bge-small (int8) 0.7297 / 0.9370 (semantic alone 0.7025).
 */
export const FUSION_PROFILES: Readonly<Record<string, Readonly<FusionProfile>>> = Object.freeze({
  'static:glove-sg-100d-sif': Object.freeze({ semanticWeight: 0.1, keywordWeight: 0.9, matchBonus: 0.3, floor: 0.62 }),
  'transformer:all-MiniLM-L6-v2': Object.freeze({ semanticWeight: 0.35, keywordWeight: 0.65, matchBonus: 0.8, floor: 0.36 }),
  'transformer:bge-small-en-v1.5': Object.freeze({ semanticWeight: 0.55, keywordWeight: 0.45, matchBonus: 0.8, floor: 0.67 }),
});

/** For a model not measured here: MiniLM's profile (a mean-pooled sentence-transformers model is the common case). */
export const GENERIC_FUSION_PROFILE: Readonly<FusionProfile> = FUSION_PROFILES['transformer:all-MiniLM-L6-v2']!;

export interface ActiveFusion {
  profile: FusionProfile;
  /** `model`: the model's measured profile; `generic`: a model without one; `settings`: weights the user set. */
  source: 'model' | 'generic' | 'settings';
}

/** The profile of the model `identity`, with the weights the user set (null: the model's). */
export function activeFusion(identity: string | null, weights: { semantic: number | null; keyword: number | null }): ActiveFusion {
  const own = identity !== null ? FUSION_PROFILES[identity] : undefined;
  const base = own ?? GENERIC_FUSION_PROFILE;
  const profile = { ...base, semanticWeight: weights.semantic ?? base.semanticWeight, keywordWeight: weights.keyword ?? base.keywordWeight };
  const source = weights.semantic !== null || weights.keyword !== null ? 'settings' : own ? 'model' : 'generic';
  return { profile, source };
}
