/**
 * Hybrid fusion: relevance = semantic_score + keyword_score, the API's sum, built so that evidence is respected:
 *
 *   keyword_score  = w_kw · (bonus + (1 − bonus) · bm25 / best bm25)   for a file with a query word, else 0
 *   semantic_score = w_sem · max(0, (cos − floor) / (1 − floor))
 *
 * - Matching any query word is worth `w_kw · bonus` by itself, however weak the BM25 (min-max normalisation
 *   gave the weakest keyword match 0, so any semantic neighbour beat it: a rare word found in two notes ranked
 *   the second one 7th). A file that matches no query word therefore outranks a file that does only when its
 *   semantic_score alone exceeds that bonus, i.e. when its cosine is above `strongCosine(profile)`.
 * - Below `floor` the semantic side counts nothing, so a file that matches no query word and is not similar
 *   enough is left out of a hybrid answer instead of padding it with noise.
 * Both ends are absolute cosines, which is why they belong to a model (its profile: models/fusion-profiles.ts).
 * A weighted sum measured far better here than reciprocal-rank fusion (k=60: nDCG@10 0.38–0.48 against 0.68 on
 * SciFact with the built-in embedder). Pure, on [id, score] lists.
 */
import { strongCosine, type FusionProfile } from '../models/fusion-profiles.js';
import { normalizeMax, type ScoredId } from './normalize.js';

export { strongCosine, type FusionProfile };

export interface FusedHit {
  id: number;
  /** The relevance score: descending along the returned order; always semanticPart + keywordPart. */
  score: number;
  /** The semantic side's share of the score. */
  semanticPart: number;
  /** The keyword side's share, including the exact-file-name tier bonus (a keyword match on the name). */
  keywordPart: number;
  /** The side's own score (cosine, BM25); null when the side did not score the id. */
  semantic: number | null;
  keyword: number | null;
  /** Exact-file-name tier (2 = whole name, 1 = name without extension, 0 = none): higher tiers come first. */
  tier: number;
}

export interface FusionInput {
  /** Best-chunk cosine per file (a list may name a file twice: its best score counts). */
  semantic: readonly ScoredId[];
  /** BM25 per file that has a query word. */
  keyword: readonly ScoredId[];
  /** Exact-file-name tiers from the keyword side. */
  tiers?: ReadonlyMap<number, number>;
  /**
   * Cosine to assume for a keyword hit the semantic side did not return, when its list was cut (then the hit
   * lies below the list's last cosine); null when the semantic side returned every file it could.
   */
  semanticMissing?: number | null;
}

function best(hits: readonly ScoredId[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const [id, s] of hits) out.set(id, Math.max(out.get(id) ?? -Infinity, s));
  return out;
}

/**
 * Orders by tier, then score, then id (deterministic). Tiered ids get their score plus tier × (2·max|score| + 1),
 * so the relevance score itself falls along the order, as the API promises ("sorted by relevance_score descending").
 */
function order(hits: FusedHit[]): FusedHit[] {
  const maxAbs = hits.reduce((m, h) => Math.max(m, Math.abs(h.score)), 0);
  const tierStep = 2 * maxAbs + 1;
  for (const hit of hits) {
    if (hit.tier === 0) continue;
    hit.keywordPart += hit.tier * tierStep;
    hit.score = hit.semanticPart + hit.keywordPart;
  }
  return hits.sort((a, b) => b.tier - a.tier || b.score - a.score || a.id - b.id);
}

/** Hybrid: every id of either list appears once, except files with no query word whose cosine is below the floor. */
export function fuseHybrid(input: FusionInput, p: FusionProfile): FusedHit[] {
  const cos = best(input.semantic);
  const bm25 = best(input.keyword);
  const normalised = new Map(normalizeMax([...bm25]));
  const tiers = input.tiers ?? new Map<number, number>();
  const ids = new Set<number>([...cos.keys(), ...bm25.keys(), ...tiers.keys()]);
  const hits: FusedHit[] = [];
  for (const id of ids) {
    const c = cos.get(id) ?? input.semanticMissing ?? null;
    const semanticPart = c === null ? 0 : p.semanticWeight * Math.max(0, (c - p.floor) / (1 - p.floor));
    const k = normalised.get(id);
    const matched = (bm25.get(id) ?? 0) > 0;
    const keywordPart = matched ? p.keywordWeight * (p.matchBonus + (1 - p.matchBonus) * (k ?? 0)) : 0;
    const tier = tiers.get(id) ?? 0;
    if (!matched && tier === 0 && !(semanticPart > 0)) continue; // nothing but noise: left out
    hits.push({ id, score: semanticPart + keywordPart, semanticPart, keywordPart, semantic: cos.get(id) ?? null, keyword: bm25.get(id) ?? null, tier });
  }
  return order(hits);
}

/** Keyword mode: BM25 divided by the best, exact names first. */
export function rankKeyword(keyword: readonly ScoredId[], tiers: ReadonlyMap<number, number> = new Map()): FusedHit[] {
  const raw = best(keyword);
  const hits = normalizeMax([...raw]).map(([id, s]): FusedHit => ({ id, score: s, semanticPart: 0, keywordPart: s, semantic: null, keyword: raw.get(id) ?? null, tier: tiers.get(id) ?? 0 }));
  for (const id of tiers.keys()) {
    if (!raw.has(id)) hits.push({ id, score: 0, semanticPart: 0, keywordPart: 0, semantic: null, keyword: null, tier: tiers.get(id) ?? 0 });
  }
  return order(hits);
}

/** Semantic mode: the cosine itself. */
export function rankSemantic(semantic: readonly ScoredId[]): FusedHit[] {
  return order([...best(semantic)].map(([id, c]) => ({ id, score: c, semanticPart: c, keywordPart: 0, semantic: c, keyword: null, tier: 0 })));
}
