/**
 * A search's candidates, listed before it ranks when the query's phrases or the filters leave few. Checked
 * candidate by candidate, a rare phrase or a narrow filter makes both sides walk far down their rankings before
 * enough pass: at 100k files the keyword side asked 200, 800, 3,200, then 12,800 documents, and the semantic side's
 * graph walk ran to its scan limit (bench:search --form phrase: hybrid p50 0.7 s; --form directory, one folder of
 * 1,000 files: 0.2 s, p99 1 s). So, first:
 *  - each quoted phrase's files, up to CANDIDATE_LIST_LIMIT: the documents whose postings hold every one of its
 *    words in one field (an intersection of sorted lists), the phrase then checked on those fields' segments by
 *    key. Not from a GIN index on the positions: every file write paid one, for this lookup alone (sql/0018). A
 *    file whose long text is still being written in slices has no postings yet: keyword search does not find it
 *    until then, and neither does a phrase;
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
import { decodeInt4, decodeText } from '../binary.js';
import { fieldPostings, type FieldPostings } from './layout.js';
import { KEYWORD_TS_CONFIG, TAIL_POSTING_RECORD, type CandidateListing } from './query.js';

export type { CandidateListing } from './query.js';

/**
 * Documents holding a phrase's words, and files passing the filters, at most before they count as common. Each
 * document costs its segments' phrase check (~10 µs a segment); a list of this many files costs the semantic side
 * an exact scan of their chunks (a few ms).
 */
export const CANDIDATE_LIST_LIMIT = 2000;

export interface ListingOptions {
  /** Documents a phrase's words share, and files passing the filters, before they count as common (tests and benchmarks set it). */
  limit?: number | undefined;
  /** false: phrases of one word are left unlisted (the keyword side finds their files in its postings). */
  oneWord?: boolean;
}

/** Lists the search's candidates (see the header). */
export async function listCandidates(
  tx: SqlExecutor,
  query: ParsedQuery,
  filters: CandidateFilters,
  { limit = CANDIDATE_LIST_LIMIT, oneWord = true }: ListingOptions = {},
): Promise<CandidateListing> {
  const listing: CandidateListing = { files: null, filtersListed: false, unlisted: [], lexemes: [] };
  // The files every listed constraint allows (null: none listed yet).
  let files: Set<number> | null = null;
  for (const phrase of query.phrases) {
    const words = await phraseWords(tx, phrase);
    if (words.length === 0) continue; // stop words only: it constrains nothing
    // One word, once: any file holding it holds the phrase ("bye bye" is two words of one lexeme).
    const single = words.length === 1 && words[0]!.count === 1;
    const holding = !oneWord && single ? null : await filesWithPhrase(tx, phrase, documentsHoldingAll(words), !single, limit);
    if (holding === null) {
      listing.unlisted.push(phrase);
      listing.lexemes.push(words.flatMap((w) => new Array<string>(w.count).fill(w.lexeme)));
      continue;
    }
    files = narrowed(files, holding);
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

interface PhraseWord extends FieldPostings {
  lexeme: string;
  /** How many of the phrase's words it stands for. */
  count: number;
}

/**
 * The phrase's words as the index holds them (stemmed, stop words left out, in the tsvector's order), each with
 * the documents whose postings hold it and in which fields (ascending; a buried document's too: its file has no
 * document row), from its sealed blocks and its tail, in one statement.
 */
async function phraseWords(tx: SqlExecutor, phrase: string): Promise<PhraseWord[]> {
  return tx.readBytes(
    // The blocks' records, then the tail's: every tail document is above every sealed one, so the list is ascending.
    `SELECT convert_to(u.lexeme, 'UTF8'), int4send(cardinality(u.positions)),
            ${tx.bytesColumn(`coalesce((SELECT string_agg(b.postings, ''::bytea ORDER BY b.first_doc) FROM keyword_blocks b WHERE b.lexeme = u.lexeme), ''::bytea)
                              || coalesce((SELECT string_agg(${TAIL_POSTING_RECORD}, ''::bytea ORDER BY t.doc) FROM keyword_tail t WHERE t.lexeme = u.lexeme), ''::bytea)`)}
     FROM unnest(to_tsvector('${KEYWORD_TS_CONFIG}', $1::text)) AS u`,
    [phrase],
    (rows) => rows.map(([lexeme, count, postings]) => ({ lexeme: decodeText(lexeme!), count: decodeInt4(count!), ...fieldPostings(postings!) })),
  );
}

/**
 * The documents holding every one of `words` in one field at least (a phrase never spans two: each field is its
 * own segments), ascending, with the fields that hold them all.
 */
function documentsHoldingAll(words: readonly PhraseWord[]): FieldPostings {
  const byRarity = [...words].sort((a, b) => a.docs.length - b.docs.length);
  let holding: FieldPostings = byRarity[0]!;
  for (const word of byRarity.slice(1)) {
    if (holding.docs.length === 0) break;
    holding = intersect(holding, word);
  }
  return holding;
}

/**
 * The documents of two ascending lists that both hold in a common field, ascending, with the fields they share:
 * a merge, galloping through the longer list.
 */
function intersect(short: FieldPostings, long: FieldPostings): FieldPostings {
  const docs = new Int32Array(Math.min(short.docs.length, long.docs.length));
  const fields = new Uint8Array(docs.length);
  const theirs = long.docs;
  let n = 0;
  let j = 0;
  for (let i = 0; i < short.docs.length && j < theirs.length; i++) {
    const doc = short.docs[i]!;
    if (theirs[j]! < doc) {
      // Gallop: double the step until past doc, then search the last step's range.
      let step = 1;
      while (j + step < theirs.length && theirs[j + step]! < doc) step *= 2;
      let lo = j + (step >> 1);
      let hi = Math.min(j + step, theirs.length - 1);
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (theirs[mid]! < doc) lo = mid + 1;
        else hi = mid;
      }
      j = lo;
    }
    if (theirs[j] !== doc) continue;
    const shared = short.fields[i]! & long.fields[j]!;
    if (shared === 0) continue;
    docs[n] = doc;
    fields[n++] = shared;
  }
  return { docs: docs.subarray(0, n), fields: fields.subarray(0, n) };
}

/**
 * Documents a phrase's words share, checked for the phrase itself, at most this many times the listing's limit: a
 * phrase of words that go together in more documents than that is left to the per-candidate check. A document's
 * check reads the segments of the fields holding all the words, by key.
 */
const CHECKED_PER_LISTED = 16;

/**
 * The files of `holding` that hold the phrase, or null when more than `limit` do: its positions checked on the
 * segments of each file's fields that hold all its words (name and title -3, keywords -2, summary -1, content 1..;
 * 0, a file indexed before sql/0007, held them all), `limit` documents a statement until more than `limit` files
 * hold it (or, past CHECKED_PER_LISTED times the limit, the documents are too many to check). A phrase of one word
 * (`check` false): every file of those documents. A buried document has no row in keyword_docs: it drops out here.
 */
async function filesWithPhrase(tx: SqlExecutor, phrase: string, holding: FieldPostings, check: boolean, limit: number): Promise<Set<number> | null> {
  const files = new Set<number>();
  const { docs, fields } = holding;
  if (docs.length === 0) return files;
  if (!check && docs.length > limit) return null;
  if (docs.length > CHECKED_PER_LISTED * limit) return null;
  const batch = Math.max(1, limit);
  // Each document's file, then its segments, looked up by key (LIMIT keeps each lateral apart). Written as a join
  // and EXISTS, the planner hashed all of keyword_docs for every statement (57 of 74 ms a batch at 100k), then, told
  // otherwise, scanned every segment for the phrase (195 ms); by key a batch of 2,000 takes ~25 ms.
  for (let at = 0; at < docs.length; at += batch) {
    const some = [...docs.subarray(at, at + batch)];
    const { rows } = await tx.query<{ file_id: number }>(
      check
        ? `SELECT d.file_id::integer AS file_id
           FROM unnest($1::bigint[], $2::integer[]) AS x (doc, fields)
           CROSS JOIN LATERAL (SELECT d.file_id FROM keyword_docs d WHERE d.doc = x.doc LIMIT 1) AS d
           CROSS JOIN LATERAL (SELECT 1 FROM file_segments s
                         WHERE s.file_id = d.file_id
                           AND (CASE s.seg WHEN -3 THEN 1 WHEN -2 THEN 2 WHEN -1 THEN 4 WHEN 0 THEN 15 ELSE 8 END) & x.fields <> 0
                           AND s.tsv @@ phraseto_tsquery('${KEYWORD_TS_CONFIG}', $3::text) LIMIT 1) AS g`
        : `SELECT d.file_id::integer AS file_id FROM keyword_docs d WHERE d.doc = ANY($1::bigint[])`,
      check ? [some, [...fields.subarray(at, at + batch)], phrase] : [some],
      { prepare: true },
    );
    for (const row of rows) files.add(row.file_id);
    if (files.size > limit) return null;
  }
  return files;
}

/** The files of `current` that `holding` has too; `holding` itself when nothing was listed before. */
function narrowed(current: Set<number> | null, holding: Set<number>): Set<number> {
  return current === null ? holding : new Set([...current].filter((id) => holding.has(id)));
}
