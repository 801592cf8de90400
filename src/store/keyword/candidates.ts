/**
 * A search's candidates, listed before it ranks when the query's phrases or the filters leave few. Checked
 * candidate by candidate, a rare phrase or a narrow filter makes both sides walk far down their rankings before
 * enough pass: at 100k files the keyword side asked 200, 800, 3,200, then 12,800 documents, and the semantic side's
 * graph walk ran to its scan limit (bench:search --form phrase: hybrid p50 0.7 s; --form directory, one folder of
 * 1,000 files: 0.2 s, p99 1 s). So, first:
 *  - each quoted phrase's files are read from the positions' GIN index, up to CANDIDATE_LIST_LIMIT segments;
 *  - the filters' files are read from the files table (a directory by its path index), up to CANDIDATE_LIST_LIMIT.
 * What fits is a short list of files: every candidate of either side comes from it (the semantic side scores
 * those files' chunks exactly instead of walking the graph). What does not fit is common, so most of the best
 * candidates pass it, and checking them one by one stays cheap. Hand-written: how a search narrows its candidates
 * follows our index's layout (segments, postings, the graph), not a solved problem a library covers.
 */
import { buildFilterConditions, type CandidateFilters } from '../queries/filters.js';
import { SqlParams } from '../queries/params.js';
import type { ParsedQuery } from '../queries/parsed-query.js';
import type { SqlExecutor } from '../sql.js';
import { KEYWORD_TS_CONFIG, type CandidateListing } from './query.js';

export type { CandidateListing } from './query.js';

/**
 * Rows read per phrase, and for the filters, at most before they count as common. A phrase's segment costs its
 * tsvector's recheck (~10 µs); a list of this many files costs the semantic side an exact scan of their chunks
 * (a few ms).
 */
export const CANDIDATE_LIST_LIMIT = 2000;

export interface ListingOptions {
  /** Rows read per phrase, and for the filters, before they count as common (tests and benchmarks set it). */
  limit?: number | undefined;
  /** false: phrases of one word are left unlisted (the keyword side finds their files in its postings). */
  oneWord?: boolean;
}

/**
 * Lists the search's candidates (see the header). The GIN index is forced: on a young index its pending list makes
 * the planner estimate a sequential scan of every segment cheaper, which reads them all for a rare phrase.
 */
export async function listCandidates(
  tx: SqlExecutor,
  query: ParsedQuery,
  filters: CandidateFilters,
  { limit = CANDIDATE_LIST_LIMIT, oneWord = true }: ListingOptions = {},
): Promise<CandidateListing> {
  const listing: CandidateListing = { files: null, filtersListed: false, unlisted: [], lexemes: [] };
  // The files every listed constraint allows (null: none listed yet).
  let files: Set<number> | null = null;
  if (query.phrases.length > 0) {
    await tx.exec('SET LOCAL enable_seqscan = off');
    for (const phrase of query.phrases) {
      // A phrase of stop words only has no lexemes: it constrains nothing (no row, no condition).
      const { rows } = await tx.query<{ file_id: number | null; lexemes: string[] }>(
        `SELECT g.file_id::integer AS file_id, p.lexemes
         FROM (SELECT phraseto_tsquery('${KEYWORD_TS_CONFIG}', $1::text) AS q,
                      array(SELECT u.lexeme FROM unnest(to_tsvector('${KEYWORD_TS_CONFIG}', $1::text)) AS u) AS lexemes) AS p
         LEFT JOIN LATERAL (
           -- the condition on the phrase alone inside: a one-time filter that skips the scan (in ON, it ran)
           SELECT s.file_id FROM file_segments s
           WHERE ($3::boolean OR cardinality(p.lexemes) > 1) AND s.tsv @@ p.q LIMIT $2::integer
         ) AS g ON true
         WHERE numnode(p.q) > 0`,
        [phrase, limit + 1, oneWord],
        { prepare: true },
      );
      if (rows.length === 0) continue; // stop words only
      if (rows.length > limit || (!oneWord && rows[0]!.lexemes.length === 1)) {
        listing.unlisted.push(phrase);
        listing.lexemes.push(rows[0]!.lexemes);
        continue;
      }
      files = narrowed(files, new Set(rows.flatMap((r) => (r.file_id === null ? [] : [r.file_id]))));
    }
    await tx.exec('SET LOCAL enable_seqscan = on');
  }
  const params = new SqlParams();
  const conditions = buildFilterConditions(filters, params, 'f');
  // Once the phrases left a short list, the filters are cheaper checked on it than listed.
  if (conditions.length > 0 && files === null) {
    const { rows } = await tx.query<{ id: number }>(
      `SELECT f.id::integer AS id FROM files f WHERE ${conditions.join(' AND ')} LIMIT ${params.add(limit + 1, 'integer')}`,
      params.values,
      { prepare: true },
    );
    if (rows.length <= limit) {
      files = narrowed(files, new Set(rows.map((r) => r.id)));
      listing.filtersListed = true;
    }
  }
  if (files !== null) listing.files = [...files].sort((a, b) => a - b);
  return listing;
}

/** The files of `current` that `holding` has too; `holding` itself when nothing was listed before. */
function narrowed(current: Set<number> | null, holding: Set<number>): Set<number> {
  return current === null ? holding : new Set([...current].filter((id) => holding.has(id)));
}
