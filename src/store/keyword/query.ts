/**
 * The SQL of keyword search over the block index (sql/0007_keyword_blocks.sql): the query's terms with their BM25F
 * weights, each term's block bounds, dead documents and unsealed postings, the blocks asked for, the documents
 * the filters and the query's phrases and exclusions admit, and the exact-file-name tier. Scoring itself happens in
 * top-k.ts over what these statements return as bytes.
 *
 * The formula (bm25.ts is its reference, with the same result):
 *   score(f) = Σ_t weight_t · tf / (tf + c1 + c2 · dl),   weight_t = qtf · ln(1 + (N − df_t + 0.5)/(df_t + 0.5)) · (k1 + 1)
 *   tf = Σ_field w_field·tf_field,  dl = Σ_field w_field·len_field,  c1 = k1(1 − b),  c2 = k1·b / avgdl
 * with avgdl = Σ_field w_field·Σ len_field / N, N and the length sums from keyword_stats, and
 * df_t = postings in blocks − postings of departed documents + postings unsealed (every file containing t once).
 */
import { buildFilterConditions, type CandidateFilters } from '../queries/filters.js';
import type { ParsedQuery } from '../queries/parsed-query.js';
import { SqlParams, type SqlStatement } from '../queries/params.js';
import type { Bm25Params, FieldWeights } from './bm25.js';

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
  /**
   * Files whose exact BM25F is wanted besides the top `limit` (a hybrid search's semantic candidates): answered
   * apart, for those the top `limit` left out (keyword/search.ts, KeywordSearchResult.also), in the same pass.
   */
  alsoIds?: readonly number[];
  /**
   * The search's candidates as listed for both sides of a hybrid search (candidates.ts, with phrases of one word
   * listed too); listed here when not given.
   */
  listing?: CandidateListing;
}

/** One result row: file id, BM25F score (0 for a file found by name only) and exact-name tier (0, 1, 2). */
export interface KeywordHitRow {
  id: number;
  score: number;
  tier: number;
}

/** Throws on settings that cannot have passed validation (a bug upstream, not user input). */
export function checkSettings(s: KeywordRankingSettings): void {
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

/** What listing a search's candidates found. */
export interface CandidateListing {
  /**
   * The files holding every listed phrase and passing the filters when those were listed, ascending; null when
   * nothing was listed. An empty list: no file can be answered.
   */
  files: number[] | null;
  /** Whether the filters are settled by `files` (they were listed): no candidate needs checking against them. */
  filtersListed: boolean;
  /** The phrases too common to list: still checked on each candidate's segments. */
  unlisted: string[];
  /**
   * Each unlisted phrase's words as the index holds them (stemmed, stop words left out, a repeated word as often as
   * it is repeated), in the order of `unlisted`: a file holding the phrase holds each of them, so the keyword side
   * narrows its candidates by their postings, and a phrase of one word needs no other check ("bye bye" does).
   */
  lexemes: string[][];
}

/**
 * What a statement checks of the query's phrases (candidates.ts lists them): the files listed as holding the rare
 * ones (null: none listed), and each unlisted phrase on a candidate's own segments.
 */
export type PhraseChecks = { files: readonly number[] | null; unlisted: readonly string[] };

/**
 * Conditions from the query's phrases, on a file id expression: the listed files (candidates.ts), and each phrase too
 * common to list checked on the file's own segments (a lookup by key per candidate: an uncorrelated `IN (files
 * holding it)` evaluated the phrase over the whole collection for every statement, and for a common phrase that is
 * most of it).
 */
function phraseConditions(listing: PhraseChecks, params: SqlParams, fileId: string): string[] {
  const conditions = listing.files === null ? [] : [`${fileId} = ANY(${params.add([...listing.files], 'bigint[]')})`];
  for (const phrase of listing.unlisted) {
    const q = `phraseto_tsquery('${KEYWORD_TS_CONFIG}', ${params.add(phrase, 'text')})`;
    // A phrase of stop words only has no lexemes: it constrains nothing (instead of matching nothing).
    conditions.push(`(numnode(${q}) = 0 OR EXISTS (SELECT 1 FROM file_segments g WHERE g.file_id = ${fileId} AND g.tsv @@ ${q}))`);
  }
  return conditions;
}

/**
 * No excluded word or phrase may occur in the file: one tsquery (x1) | (x2) | ..., checked on the file's own
 * segments. NOT EXISTS, not NOT IN: PostgreSQL cannot turn NOT IN into an anti-join (NULL semantics), so it
 * evaluated the tsquery over every segment of the collection (the GIN index's whole bitmap, then a hashed set) for
 * every candidate batch, 103 ms a batch of 200 for `-mice` at 100k files; as an anti-join it looks up each
 * candidate's segments by key, 2.5 ms.
 */
function exclusionConditions(query: ParsedQuery, params: SqlParams, fileId: string): string[] {
  if (query.excluded.length === 0) return [];
  const e = params.add(query.excluded, 'text[]');
  // NULL when every excluded item is a stop word (then nothing is excluded).
  const anyExcluded =
    `(SELECT string_agg('(' || x.q::text || ')', ' | ')::tsquery ` +
    `FROM (SELECT phraseto_tsquery('${KEYWORD_TS_CONFIG}', e) AS q FROM unnest(${e}) AS e) AS x WHERE numnode(x.q) > 0)`;
  return [`NOT EXISTS (SELECT 1 FROM file_segments g WHERE g.file_id = ${fileId} AND g.tsv @@ ${anyExcluded})`];
}

/**
 * The query's phrase and exclusion conditions on a file id expression, for any query over files (the semantic
 * side uses them too, so `-draft` also removes files that only the embedding found). `phrases`: what listing
 * them found (candidates.ts); by default none is listed and each is checked on the file's segments.
 */
export function buildQueryConstraints(
  query: ParsedQuery,
  params: SqlParams,
  fileId: string,
  phrases: PhraseChecks = { files: null, unlisted: query.phrases },
): string[] {
  return [...phraseConditions(phrases, params, fileId), ...exclusionConditions(query, params, fileId)];
}

/** Filters and query constraints on the files row `alias`: what every candidate of either side must satisfy. */
export function buildCandidateConditions(
  query: ParsedQuery,
  filters: CandidateFilters,
  params: SqlParams,
  alias = 'f',
  phrases?: PhraseChecks,
): string[] {
  return [...buildFilterConditions(filters, params, alias), ...buildQueryConstraints(query, params, `${alias}.id`, phrases)];
}


/** The four field weights in the index's order (A name+title, B keywords, C summary, D content). */
export function fieldWeightList(s: KeywordRankingSettings): [number, number, number, number] {
  const w = s.fieldWeights;
  return [w.name, w.keywords, w.summary, w.content];
}

/** A block bound record: first_doc int4, last_doc int4, n int2, the maxima and minima (layout.ts). */
const BLOCK_BOUND_RECORD =
  'int4send(b.first_doc::integer) || int4send(b.last_doc::integer) || int2send(b.n)' +
  ' || int2send(b.max_tf_a) || int2send(b.max_tf_b) || int2send(b.max_tf_c) || int2send(b.max_tf_d)' +
  ' || int2send(b.min_len_a) || int2send(b.min_len_b) || int2send(b.min_len_c) || int4send(b.min_len_d)';
/** A posting record of the tail, as the seal function writes them into blocks (layout.ts). */
export const TAIL_POSTING_RECORD =
  'int4send(t.doc::integer) || int2send(t.tf_a) || int2send(t.tf_b) || int2send(t.tf_c) || int2send(t.tf_d)' +
  ' || int2send(t.len_a) || int2send(t.len_b) || int2send(t.len_c) || int4send(t.len_d)';

/**
 * The query's terms, one row each in the order of to_tsvector (the order scores are summed in), all bytea:
 * lexeme, weight, c1, c2 (float8send), then per `blocks`: the block bounds (Block-Max reads the blocks it needs
 * afterwards) or every block's posting records in document order (term at a time: the whole evaluation's input in
 * one statement), then dead documents and unsealed postings. Terms no file contains are left out.
 */
export function buildTermsStatement(
  rankText: string,
  settings: KeywordRankingSettings,
  blocks: 'bounds' | 'postings' = 'bounds',
  bytesColumn: (expr: string) => string = (expr) => expr,
): SqlStatement {
  checkSettings(settings);
  const params = new SqlParams();
  const text = params.add(rankText, 'text');
  const [wa, wb, wc, wd] = fieldWeightList(settings).map((x) => params.add(x, 'float8'));
  const k1 = params.add(settings.k1, 'float8');
  const b = params.add(settings.b, 'float8');
  const sql = `
WITH stats AS (
  SELECT n_docs::float8 AS n,
         ${k1} * (1 - ${b}) AS c1,
         ${k1} * ${b} / greatest((${wa} * sum_a + ${wb} * sum_b + ${wc} * sum_c + ${wd} * sum_d) / greatest(n_docs, 1), 1e-9) AS c2
  FROM keyword_stats
),
query AS (
  SELECT u.lexeme, u.positions, u.ord
  FROM unnest(to_tsvector('${KEYWORD_TS_CONFIG}', ${text})) WITH ORDINALITY AS u (lexeme, positions, weights, ord)
),
term AS (
  SELECT q.lexeme, q.positions, q.ord, blk.blocks, dead.docs AS dead, tail.postings AS tail,
         (blk.n - dead.n + tail.n)::float8 AS df
  FROM query q
  CROSS JOIN LATERAL (
    SELECT coalesce(sum(b.n), 0) AS n,
           string_agg(${blocks === 'bounds' ? BLOCK_BOUND_RECORD : 'b.postings'}, ''::bytea ORDER BY b.first_doc) AS blocks
    FROM keyword_blocks b WHERE b.lexeme = q.lexeme
  ) AS blk
  CROSS JOIN LATERAL (
    SELECT count(*) AS n, string_agg(int4send(d.doc::integer), ''::bytea ORDER BY d.doc) AS docs
    FROM keyword_dead d WHERE d.lexeme = q.lexeme
  ) AS dead
  CROSS JOIN LATERAL (
    SELECT count(*) AS n, string_agg(${TAIL_POSTING_RECORD}, ''::bytea ORDER BY t.doc) AS postings
    FROM keyword_tail t WHERE t.lexeme = q.lexeme
  ) AS tail
)
SELECT convert_to(t.lexeme, 'UTF8'),
       float8send(${settings.queryTermFrequency ? 'cardinality(t.positions)' : '1'} * ln(1 + (s.n - t.df + 0.5) / (t.df + 0.5)) * (${k1} + 1)),
       float8send(s.c1),
       float8send(s.c2),
       ${bytesColumn('t.blocks')},
       ${bytesColumn('t.dead')},
       ${bytesColumn('t.tail')}
FROM term t CROSS JOIN stats s
WHERE t.df > 0
ORDER BY t.ord`;
  return { text: sql, params: params.values };
}

/** The postings of the given blocks (lexeme, first document); rows: request number (int4, 1-based), postings. */
export function buildBlocksStatement(
  lexemes: readonly string[],
  firstDocs: readonly number[],
  bytesColumn: (expr: string) => string = (expr) => expr,
): SqlStatement {
  return {
    text: `SELECT int4send(r.ord::integer), ${bytesColumn('b.postings')}
           FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS r (lexeme, first_doc, ord)
           JOIN keyword_blocks b ON b.lexeme = r.lexeme AND b.first_doc = r.first_doc`,
    params: [[...lexemes], [...firstDocs]],
  };
}

/**
 * The documents among `docs` whose files pass the filters and the query's phrases and exclusions: one row, one
 * bytea of int4 ordinals. Null when there is nothing to check (every document passes).
 */
export function buildAdmitStatement(
  query: ParsedQuery,
  filters: CandidateFilters,
  docs: readonly number[],
  phrases?: PhraseChecks,
): SqlStatement | null {
  const params = new SqlParams();
  const list = params.add([...docs], 'bigint[]');
  const conditions = buildCandidateConditions(query, filters, params, 'f', phrases);
  if (conditions.length === 0) return null;
  return {
    text: `SELECT string_agg(int4send(d.doc::integer), ''::bytea)
           FROM keyword_docs d JOIN files f ON f.id = d.file_id
           WHERE d.doc = ANY(${list}) AND ${conditions.join(' AND ')}`,
    params: params.values,
  };
}

/** Whether the filters or the query constrain which documents may be answered at all. */
export function constrains(query: ParsedQuery, filters: CandidateFilters, phrases?: PhraseChecks): boolean {
  const probe = new SqlParams();
  return buildCandidateConditions(query, filters, probe, 'f', phrases).length > 0;
}

/** The files of the given documents: rows of one bytea, doc int4 then file id int8. */
export function buildFilesOfStatement(docs: readonly number[]): SqlStatement {
  return {
    text: `SELECT int4send(d.doc::integer) || int8send(d.file_id) FROM keyword_docs d WHERE d.doc = ANY($1::bigint[])`,
    params: [[...docs]],
  };
}

/** The documents of the given files: rows of one bytea, doc int4 then file id int8. */
export function buildDocsOfStatement(fileIds: readonly number[]): SqlStatement {
  return {
    text: `SELECT int4send(d.doc::integer) || int8send(d.file_id) FROM keyword_docs d WHERE d.file_id = ANY($1::bigint[])`,
    params: [[...fileIds]],
  };
}

/**
 * The exact-file-name tier: files named exactly as asked (tier 2), or so without their extension (tier 1), that
 * pass the filters and exclusions (a quoted name is what it means, so phrases do not apply): rows of one bytea,
 * file id int8, tier int4, doc int4 (-1 for a file without a document).
 */
export function buildNamedStatement(query: ParsedQuery, filters: CandidateFilters): SqlStatement | null {
  if (query.nameKey === null) return null;
  const params = new SqlParams();
  const name = params.add(query.nameKey, 'text');
  const conditions = [...buildFilterConditions(filters, params, 'f'), ...exclusionConditions(query, params, 'f.id')];
  return {
    text: `SELECT int8send(f.id) || int4send(CASE WHEN lower(f.filename) = lower(${name}) THEN 2 ELSE 1 END)
                  || int4send(coalesce(d.doc, -1)::integer)
           FROM files f LEFT JOIN keyword_docs d ON d.file_id = f.id
           WHERE (lower(f.filename) = lower(${name}) OR filesift_filename_stem(f.filename) = lower(${name}))${conditions.length > 0 ? `
             AND ${conditions.join(' AND ')}` : ''}`,
    params: params.values,
  };
}
