/**
 * Quoted phrases, listed before a search when they are rare. A phrase is checked on a file's segments (their
 * positions, sql/0006); checked candidate by candidate, a rare phrase makes both sides walk far down their rankings
 * before enough candidates pass: at 100k files the keyword side asked 200, 800, 3,200, then 12,800 documents, and
 * the semantic side's graph walk ran to its scan limit (bench:search --form phrase: hybrid p50 0.7 s). So each
 * phrase's files are first read from the positions' GIN index, up to PHRASE_LIST_LIMIT segments: a phrase that
 * fits is a short list of files, every candidate of either side comes from it (the semantic side scores those
 * files' chunks exactly instead of walking the graph), and a phrase that does not fit is common, so most of the
 * best candidates hold it and checking them one by one stays cheap.
 */
import type { ParsedQuery } from '../queries/parsed-query.js';
import type { SqlExecutor } from '../sql.js';
import { KEYWORD_TS_CONFIG } from './query.js';

/**
 * Segments read per phrase at most before it counts as common. Reading one costs its tsvector's recheck (~10 µs);
 * a list of this many files costs the semantic side an exact scan of their chunks (a few ms).
 */
export const PHRASE_LIST_LIMIT = 2000;

/** What listing the query's phrases found. */
export interface PhraseListing {
  /**
   * The files holding every listed phrase (each in one of its segments), ascending; null when no phrase was
   * listed (none was asked, or each is common). An empty list: no file holds them, nothing can be answered.
   */
  files: number[] | null;
  /** The phrases too common to list: still checked on each candidate's segments. */
  unlisted: string[];
  /**
   * Each unlisted phrase's words as the index holds them (stemmed, stop words left out), in the order of
   * `unlisted`: a file holding the phrase holds each of them, so the keyword side narrows its candidates by their
   * postings, and a phrase of one word needs no other check.
   */
  lexemes: string[][];
}

/**
 * Lists the query's phrases (see the header). `limit`: segments read per phrase before it counts as common.
 * `oneWord` false leaves phrases of one word unlisted (the keyword side finds their files in its postings). The GIN index is forced: on a young index its pending list makes
 * the planner estimate a sequential scan of every segment cheaper, which reads them all for a rare phrase.
 */
export async function listPhrases(
  tx: SqlExecutor,
  query: ParsedQuery,
  { limit = PHRASE_LIST_LIMIT, oneWord = true }: { limit?: number | undefined; oneWord?: boolean } = {},
): Promise<PhraseListing> {
  const listing: PhraseListing = { files: null, unlisted: [], lexemes: [] };
  if (query.phrases.length === 0) return listing;
  let files = null as Set<number> | null;
  await tx.exec('SET LOCAL enable_seqscan = off');
  for (const phrase of query.phrases) {
    // A phrase of stop words only has no lexemes: it constrains nothing (no row, no condition).
    const { rows } = await tx.query<{ file_id: number | null; lexemes: string[] }>(
      `SELECT g.file_id::integer AS file_id, p.lexemes
       FROM (SELECT phraseto_tsquery('${KEYWORD_TS_CONFIG}', $1::text) AS q,
                    array(SELECT u.lexeme FROM unnest(to_tsvector('${KEYWORD_TS_CONFIG}', $1::text)) AS u) AS lexemes) AS p
       LEFT JOIN LATERAL (SELECT s.file_id FROM file_segments s WHERE s.tsv @@ p.q LIMIT $2::integer) AS g
         ON $3::boolean OR cardinality(p.lexemes) > 1
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
    const holding = new Set(rows.flatMap((r) => (r.file_id === null ? [] : [r.file_id])));
    files = files === null ? holding : new Set([...files].filter((id: number) => holding.has(id)));
  }
  await tx.exec('SET LOCAL enable_seqscan = on');
  if (files !== null) listing.files = [...files].sort((a, b) => a - b);
  return listing;
}
