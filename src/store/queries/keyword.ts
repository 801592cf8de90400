/**
 * The keyword half of search: exact BM25F over the postings kept by sql/0006_create_keyword_index.sql, as one
 * parameterised statement for SqlExecutor.query(). Ranking is bm25.ts's formula, computed in the database:
 *
 *   score(f) = Σ_t qtf_t · ln(1 + (N − df_t + 0.5)/(df_t + 0.5)) · tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl))
 *   tf = Σ_field w_field·tf_field(t, f),  dl = Σ_field w_field·len_field(f),  avgdl = Σ_field w_field·Σ len / N
 *
 * df is the number of postings of the lexeme, counted on the covering primary key (an index-only scan once the
 * table is vacuumed); N and the length sums come from keyword_stats. Every file containing any query lexeme is
 * scored (OR semantics, exact top-k), filters and phrase/exclusion constraints apply before the LIMIT.
 *
 * Exact file-name tier: a file whose name (tier 2), or name without its extension (tier 1), equals the
 * positive query text, ignoring case, comes before every other file, even with no term in its text.
 */
import type { Bm25Params, FieldWeights } from './bm25.js';
import { buildFilterConditions, type CandidateFilters } from './filters.js';
import type { ParsedQuery } from './parsed-query.js';
import { SqlParams, type SqlStatement } from './params.js';
import type { SqlDatabase } from '../sql.js';

/** The text search configuration of the keyword index (created by the migration). */
export const KEYWORD_TS_CONFIG = 'filesift_english';

export interface KeywordRankingSettings extends Bm25Params {
  /** Weights of name+title, keywords, summary and content (BM25F: applied to tf and to length). */
  fieldWeights: FieldWeights;
  /** Count a word as often as the query repeats it (Anserini does; measured slightly worse here). */
  queryTermFrequency: boolean;
}

/**
 * Chosen on SciFact train only (bench/ranking-experiment.ts, bench/ranking-results.md): field weights constrained to the issue's order
 * (name+title ≥ keywords ≥ summary ≥ content) and best on train within it, then k1/b/query-tf re-tuned. On
 * SciFact the whole ordered region is within noise of the flat single-field index (train nDCG@10 0.7039 both;
 * its file names are ids and its titles repeat in the text, so it cannot value them): test nDCG@10 0.6923,
 * R@100 0.920.
 */
export const DEFAULT_KEYWORD_RANKING: Readonly<KeywordRankingSettings> = Object.freeze({
  k1: 1.2,
  b: 0.75,
  fieldWeights: Object.freeze({ name: 4, keywords: 1.25, summary: 1.25, content: 1 }),
  queryTermFrequency: false,
});

export interface KeywordQueryOptions {
  /** Rows to return (top-k). */
  limit: number;
  /** Validated filters (validateCandidateFilters). */
  filters?: CandidateFilters;
  settings?: KeywordRankingSettings;
  /** Score only these files, e.g. to fill in the keyword side of files the semantic side found. */
  onlyIds?: readonly number[];
}

/** One result row: file id, BM25F score (0 for a file found by name only) and exact-name tier (0, 1, 2). */
export interface KeywordHitRow {
  id: number;
  score: number;
  tier: number;
}

/** Throws on settings that cannot have passed validation (a bug upstream, not user input). */
function checkSettings(s: KeywordRankingSettings): void {
  const weights = Object.values(s.fieldWeights);
  const fine =
    Number.isFinite(s.k1) &&
    s.k1 >= 0 &&
    Number.isFinite(s.b) &&
    s.b >= 0 &&
    s.b <= 1 &&
    weights.every((w) => Number.isFinite(w) && w >= 0) &&
    weights.some((w) => w > 0);
  if (!fine) throw new Error(`invalid keyword ranking settings: ${JSON.stringify(s)}`);
}

interface ConstraintParts {
  phrases: string[];
  exclusions: string[];
}

/**
 * Conditions from the query itself, on a file id expression: every quoted phrase must occur (in one segment
 * of the file), no excluded word or phrase may. Each is an uncorrelated subquery over the GIN index (a hashed
 * subplan, evaluated once per query, not per candidate).
 */
function constraintParts(query: ParsedQuery, params: SqlParams, fileId: string): ConstraintParts {
  const phrases: string[] = [];
  for (const phrase of query.phrases) {
    const p = params.add(phrase, 'text');
    // A phrase of stop words only has no lexemes: it constrains nothing (instead of matching nothing).
    phrases.push(
      `(numnode(phraseto_tsquery('${KEYWORD_TS_CONFIG}', ${p})) = 0 OR ${fileId} IN ` +
        `(SELECT g.file_id FROM file_segments g WHERE g.tsv @@ phraseto_tsquery('${KEYWORD_TS_CONFIG}', ${p})))`,
    );
  }
  const exclusions: string[] = [];
  if (query.excluded.length > 0) {
    const e = params.add(query.excluded, 'text[]');
    // One tsquery: (x1) | (x2) | ...; NULL when every excluded item is a stop word (then nothing is excluded).
    const anyExcluded =
      `(SELECT string_agg('(' || x.q::text || ')', ' | ')::tsquery ` +
      `FROM (SELECT phraseto_tsquery('${KEYWORD_TS_CONFIG}', e) AS q FROM unnest(${e}) AS e) AS x WHERE numnode(x.q) > 0)`;
    exclusions.push(`${fileId} NOT IN (SELECT g.file_id FROM file_segments g WHERE g.tsv @@ ${anyExcluded})`);
  }
  return { phrases, exclusions };
}

/**
 * The query's phrase and exclusion conditions on a file id expression, for any query over files (the semantic
 * side uses them too, so `-draft` also removes files that only the embedding found).
 */
export function buildQueryConstraints(query: ParsedQuery, params: SqlParams, fileId: string): string[] {
  const parts = constraintParts(query, params, fileId);
  return [...parts.phrases, ...parts.exclusions];
}

/** Filters and query constraints on the files row `alias`: what every candidate of either side must satisfy. */
export function buildCandidateConditions(
  query: ParsedQuery,
  filters: CandidateFilters,
  params: SqlParams,
  alias = 'f',
): string[] {
  return [...buildFilterConditions(filters, params, alias), ...buildQueryConstraints(query, params, `${alias}.id`)];
}

/**
 * The top-k keyword statement, returning KeywordHitRow rows ordered by tier, score, id. Null when the query has
 * nothing positive to look for (empty, or only exclusions): the keyword side then has no results.
 */
export function buildKeywordQuery(query: ParsedQuery, options: KeywordQueryOptions): SqlStatement | null {
  if (query.nameKey === null || query.rankText === '') return null;
  const settings = options.settings ?? DEFAULT_KEYWORD_RANKING;
  checkSettings(settings);
  if (!Number.isSafeInteger(options.limit) || options.limit < 1) throw new Error(`invalid limit ${options.limit}`);

  const params = new SqlParams();
  const text = params.add(query.rankText, 'text');
  const w = settings.fieldWeights;
  const [wa, wb, wc, wd] = [w.name, w.keywords, w.summary, w.content].map((x) => params.add(x, 'float8'));
  const k1 = params.add(settings.k1, 'float8');
  const b = params.add(settings.b, 'float8');
  const name = params.add(query.nameKey, 'text');
  const only = options.onlyIds ? params.add([...options.onlyIds], 'bigint[]') : null;
  const filterConditions = buildFilterConditions(options.filters ?? {}, params, 'f');
  const constraints = constraintParts(query, params, 'h.file_id');
  // A file named exactly as asked is what a quoted name ("report.pdf") means: phrases do not apply to it.
  const conditions = [
    ...filterConditions,
    ...constraints.exclusions,
    ...(constraints.phrases.length > 0 ? [`(h.tier > 0 OR (${constraints.phrases.join(' AND ')}))`] : []),
  ];
  const limit = params.add(options.limit, 'integer');

  // Per term: weight = qtf · idf · (k1 + 1); per posting: tf / (tf + c1 + c2 · dl), c1 = k1(1 − b), c2 = k1·b/avgdl.
  // The postings of each query lexeme are read by their own index lookup (the LATERAL subquery, fenced by
  // OFFSET 0 so the planner cannot turn it into a join): without statistics (PGlite has no autovacuum, so a
  // fresh or grown index has none until the store runs ANALYZE) the planner otherwise merge-joins the whole
  // postings index, measured 450 ms instead of 7 ms at 5k files. Each term row carries c1 and c2: joining the
  // stats row (estimated at ~1000 rows, it has no statistics) made the planner buffer every posting in a
  // Materialize node, 1.3 of 7.5 ms at 5k files.
  const positiveWeights = [w.name, w.keywords, w.summary, w.content].every((x) => x > 0);
  const sql = `
WITH stats AS (
  SELECT n_docs::float8 AS n,
         ${k1} * (1 - ${b}) AS c1,
         ${k1} * ${b} / greatest((${wa} * sum_a + ${wb} * sum_b + ${wc} * sum_c + ${wd} * sum_d) / greatest(n_docs, 1), 1e-9) AS c2
  FROM keyword_stats
),
terms AS MATERIALIZED (
  SELECT u.lexeme, s.c1, s.c2,
         ${settings.queryTermFrequency ? 'cardinality(u.positions)' : '1'} * ln(1 + (s.n - c.df + 0.5) / (c.df + 0.5)) * (${k1} + 1) AS weight
  FROM unnest(to_tsvector('${KEYWORD_TS_CONFIG}', ${text})) AS u
  CROSS JOIN stats s
  CROSS JOIN LATERAL (SELECT count(*)::float8 AS df FROM file_terms c WHERE c.lexeme = u.lexeme) AS c
  WHERE c.df > 0
),
bm25 AS (
  SELECT p.file_id, sum(t.weight * p.tf / (p.tf + t.c1 + t.c2 * p.dl)) AS score
  FROM terms t
  CROSS JOIN LATERAL (
    SELECT x.file_id,
           ${wa} * x.tf_a + ${wb} * x.tf_b + ${wc} * x.tf_c + ${wd} * x.tf_d AS tf,
           ${wa} * x.len_a + ${wb} * x.len_b + ${wc} * x.len_c + ${wd} * x.len_d AS dl
    FROM file_terms x
    WHERE x.lexeme = t.lexeme${only ? ` AND x.file_id = ANY(${only})` : ''}
    OFFSET 0
  ) AS p${positiveWeights ? '' : '\n  WHERE p.tf > 0'}
  GROUP BY p.file_id
),
named AS (
  SELECT f.id AS file_id, CASE WHEN lower(f.filename) = lower(${name}) THEN 2 ELSE 1 END AS tier
  FROM files f
  WHERE (lower(f.filename) = lower(${name}) OR filesift_filename_stem(f.filename) = lower(${name}))${only ? ` AND f.id = ANY(${only})` : ''}
),
hits AS (
  SELECT coalesce(b.file_id, n.file_id) AS file_id, coalesce(b.score, 0) AS score, coalesce(n.tier, 0) AS tier
  FROM bm25 b FULL JOIN named n ON n.file_id = b.file_id
)
SELECT h.file_id AS id, h.score, h.tier
FROM hits h${filterConditions.length > 0 ? '\n  JOIN files f ON f.id = h.file_id' : ''}${conditions.length > 0 ? `\nWHERE ${conditions.join('\n  AND ')}` : ''}
ORDER BY h.tier DESC, h.score DESC, h.file_id
LIMIT ${limit}`;
  return { text: sql, params: params.values };
}

/**
 * Runs a keyword statement in a transaction with JIT off. PostgreSQL's planner over-estimates this query badly
 * on a fresh or small table (costs in the millions), which triggers JIT compilation: measured 250-450 ms of
 * compiling for a query that runs in 1 ms. PGlite has no JIT (the setting is accepted and ignored).
 *
 * The statement is kept prepared with one generic plan: its shape is fixed by the fences above (MATERIALIZED,
 * OFFSET 0), so the values cannot improve it, and PGlite then skips planning: 4.25 against 5.3 ms per query at
 * 5k files (4.8 prepared but planned per value). On a server (unnamed statements, planned each time) both modes
 * measured 2.75 ms with identical results.
 */
export async function executeKeywordQuery(db: SqlDatabase, statement: SqlStatement): Promise<KeywordHitRow[]> {
  return db.transaction(async (tx) => {
    await tx.exec('SET LOCAL jit = off; SET LOCAL plan_cache_mode = force_generic_plan');
    return (await tx.query<KeywordHitRow>(statement.text, statement.params, { prepare: true })).rows;
  });
}
