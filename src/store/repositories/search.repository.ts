import pgvector from 'pgvector';
import { buildCandidateConditions, KEYWORD_TS_CONFIG, type KeywordQueryOptions } from '../keyword/query.js';
import { searchKeyword, type KeywordSearchResult } from '../keyword/search.js';
import { listCandidates, type CandidateListing } from '../keyword/candidates.js';
import { LARGE_DOCUMENT_POSTINGS, sealKeywordIndex, type SealProgress } from '../keyword/maintenance.js';
import { compactKeywordIndex, type CompactionProgress, type CompactionSlice, type CompactionStart } from '../keyword/compaction.js';
import { KEYWORD_SLICE_MS, KEYWORD_SLICE_PIECES, sliceBudget } from '../keyword/slices.js';
import type { CandidateFilters } from '../queries/filters.js';
import { findCorrections, type CorrectionRow } from '../keyword/lexicon.js';
import type { ParsedQuery } from '../queries/parsed-query.js';
import { SqlParams } from '../queries/params.js';
import { toIso } from '../time.js';
import type { SqlDatabase, SqlExecutor } from '../sql.js';
import { vectorListsOf, type VectorLists, type VectorUpkeep } from '../vectors/vector-lists.js';
import { decodeTextHead } from '../binary.js';
import { FILE_SUMMARY_BYTES_COLUMNS, FILE_SUMMARY_BYTES_FIELDS, fileSummaryFromBytes, type FileSummary } from './files.repository.js';

export interface SemanticSearch {
  query: ParsedQuery;
  filters: CandidateFilters;
  vector: Float32Array;
  /** Identity of the model the vector was made with: only chunks of the same model are compared. */
  model: string;
  dimension: number;
  /** Files to return (best chunk per file). */
  limit: number;
  /** Documents a phrase's words share, and files passing the filters, before they count as common (keyword/candidates.ts; tests set it). */
  listLimit?: number;
  /** The search's candidates as candidates() listed them for both sides; listed here when not given. */
  listing?: CandidateListing;
}

export interface SemanticHitRow {
  id: number;
  /** Cosine similarity of the file's best chunk. */
  score: number;
}

/** A result file as the search answer shows it, with the opening of its text to cut the snippet from. */
export interface SearchFileRow extends FileSummary {
  /** The first SNIPPET_SOURCE_CHARS characters of the extracted text. */
  content_head: string;
}

/** What the facets of a search count of each ranked file. */
export interface FacetFacts {
  id: number;
  path: string;
  extension: string;
  /** ISO 8601, or null when unknown. */
  modified: string | null;
}

export interface DescribedResults {
  files: SearchFileRow[];
  lexemes: string[];
}

/** The top files for the query's words, and the exact scores of the `alsoIds` files they left out. */
export type KeywordHits = Pick<KeywordSearchResult, 'hits' | 'also'>;

export interface SearchRepository {
  /**
   * The files a search's rare phrases or narrow filters leave (keyword/candidates.ts), listed once for both sides
   * of a hybrid search (`listing` of keyword() and semantic()): each side lists them itself when not given.
   */
  candidates(query: ParsedQuery, filters: CandidateFilters): Promise<CandidateListing>;
  keyword(query: ParsedQuery, options: KeywordQueryOptions): Promise<KeywordHits>;
  semantic(search: SemanticSearch): Promise<SemanticHitRow[]>;
  /**
   * The files of the given ids (in no particular order), and the keyword index's lexemes of the query text (its
   * words stemmed, stop words left out, each once) to cut their snippets with. One call: one hop to the store.
   */
  describe(ids: number[], queryText: string): Promise<DescribedResults>;
  /** Path, extension and modification time of the given files (in no particular order), for facet counts. */
  facts(ids: number[]): Promise<FacetFacts[]>;
  /** The keyword index's lexemes of a text (its words stemmed, stop words left out, each once). */
  lexemes(queryText: string): Promise<string[]>;
  /** The query's words that no file contains, each with its nearest lexicon word (keyword/lexicon.ts); [] when none. */
  corrections(queryText: string): Promise<CorrectionRow[]>;
  /**
   * Seals up to `maxDocs` unsealed documents of the keyword index into blocks, in one short transaction; answers
   * how many it sealed and how many remain. The caller repeats it in slices (searches run between them). With a
   * `budgetMs` the slice stops early, sealing fewer, once it has taken that long; with `slicePostings` it stops
   * before the document that would take its postings past that many (keyword/maintenance.ts).
   */
  sealKeywords(maxDocs: number, budgetMs?: number, slicePostings?: number): Promise<SealProgress>;
  /**
   * One step of the vector index's upkeep, in one short transaction (vectors/vector-lists.ts): a list past its
   * bound split in two, or else up to `batch` chunks of the tail packed into their lists (and, once the tail is
   * packed, the lists of a model no file uses any more deleted). `more` while there is
   * work left; the caller repeats it, searches running between the calls. `ms`: the step's own time.
   */
  maintainVectors(batch?: number): Promise<VectorUpkeep & { ms: number }>;
  /** Chunks written since the vector index's last pack, at most (numbers of rolled-back or deleted ones too). */
  unpackedVectors(): Promise<number>;
  /** Documents of the keyword index not sealed into blocks yet. */
  unsealedKeywords(): Promise<number>;
  /**
   * One more slice of a long text's keyword index (sql/0013_keyword_slices.sql): up to KEYWORD_SLICE_PIECES pieces
   * of its text, stopping after the piece that reaches `budgetMs` (default KEYWORD_SLICE_MS; 0: one piece), or, once all are in, its postings, LARGE_DOCUMENT_POSTINGS words a call (sql/0020: the first
   * call writes the document, and it is searchable by the words written so far); one short statement. Answers true when nothing of the file is
   * pending any more. A write of a long text (files.saveIndexed, saveCopy, move) is followed by these calls until
   * true; searches run between them.
   */
  continueKeywords(fileId: number, budgetMs?: number): Promise<boolean>;
  /** Files whose keyword index is not finished (a write cut short by a stop or a crash), oldest first. */
  pendingKeywords(): Promise<number[]>;
  /**
   * One step of the keyword index's compaction (keyword/compaction.ts), in one short transaction: copies whole
   * lexemes of about `slice.blocks` blocks and at most `slice.postings` postings, starting a copy when none runs
   * and `start` allows ('due': once the sealed range has doubled and grown by `dueAfterDocs`), or swaps a complete
   * one in. The caller repeats it while it answers 'running',
   * and seals nothing meanwhile (a seal voids the copy). With `budgetMs`, a slice stops after its first quarter
   * when that quarter took more than a quarter of the budget. The table swapped in has no statistics until
   * `analyze` reaches it (a call of its own: with the swap's, it made the longest step of a compaction).
   */
  compactKeywords(slice: CompactionSlice, start: CompactionStart, dueAfterDocs?: number, budgetMs?: number): Promise<CompactionProgress>;
  /**
   * Refreshes the planner statistics of the `part`-th table searches read, after a burst of writes (PGlite has no
   * autovacuum), when enough of it changed since its last ANALYZE (autovacuum's rule); null when there is no such
   * part. One table a call, so a search waits for one at most: ANALYZE samples a bounded number of rows, so each
   * stays short whatever the size of the index.
   */
  analyze(part: number): Promise<{ outcome: AnalyzeOutcome; ms: number } | null>;
}

/** What analyze() did with a table: refreshed its statistics, or left them (too little of it changed since). */
export type AnalyzeOutcome = 'analyzed' | 'unchanged';

/**
 * A table is analyzed again once more than ANALYZE_BASE + ANALYZE_SHARE × its rows changed since its last ANALYZE
 * (or when it never was): autovacuum's own rule (autovacuum_analyze_threshold 50, _scale_factor 0.1), from the
 * server's own count of changes. Analyzing every table after every run of 1,000 files held PGlite's thread for
 * 0.3–0.5 s per large table on a 100k index (bench:search stall run), to refresh statistics 1 % out of date.
 */
const ANALYZE_BASE = 50;
const ANALYZE_SHARE = 0.1;
/** The tables searches read, whose statistics steer their plans. */
const ANALYZED_TABLES = ['files', 'chunks', 'keyword_docs', 'keyword_tail', 'keyword_blocks', 'keyword_dead', 'file_segments'] as const;
/**
 * Statistics target of upkeep's ANALYZE per table (PostgreSQL's default is 100): see analyzeTable. `files` keeps
 * 30, for the estimates of the search filters' conditions (a folder's path prefix, dates, sizes: the index or the
 * whole table); the others are read by key (a lexeme, a file id, a chunk's sequence number) and take 10.
 */
const ANALYZE_STATISTICS_TARGET: Record<(typeof ANALYZED_TABLES)[number], number> = {
  files: 30, chunks: 10, keyword_docs: 10, keyword_tail: 10, keyword_blocks: 10, keyword_dead: 10, file_segments: 10,
};

/**
 * Text the snippet is cut from: the opening of a huge document, not all of it, crosses into JavaScript. Its first
 * 4 × SNIPPET_SOURCE_CHARS bytes (at least that many characters) are sent, and the characters counted here
 * (decodeTextHead): left() counted them in WebAssembly, ~0.2 ms a long text. describe() of the 50 longest Debian
 * documents of bench:corpus's fifth: 24.7–29.5 → 16.8–20.6 CPU ms (docs/benchmarks/search-latency.md, stop 59).
 */
const SNIPPET_SOURCE_CHARS = 20_000;

/**
 * A sample of 300 × the statistics target rows, read page by page: at the default target (100) ANALYZE of files took
 * 0.5–1 s of PGlite's thread at 100k files (searches wait behind it); at 30 it takes ~0.15 s. At 100k files on a
 * slower, loaded machine, target 30 → 10 (three runs each, ms): keyword_blocks 252–281 → 41–68, chunks 153–312 →
 * 58–65, file_segments 345–722 → 86–141 (its tsvectors' lexeme statistics, which no plan uses: segments are
 * read by key), files 422–1,074 → 68–109 (kept at 30, above).
 */
async function analyzeTable(db: SqlDatabase, table: (typeof ANALYZED_TABLES)[number]): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.exec(`SET LOCAL default_statistics_target = ${ANALYZE_STATISTICS_TARGET[table]}`);
    await tx.exec(`ANALYZE ${table}`);
  });
}

async function lexemesOf(db: SqlDatabase, text: string): Promise<string[]> {
  const { rows } = await db.query<{ lexemes: string[] }>(
    `SELECT coalesce(array_agg(u.lexeme), '{}') AS lexemes FROM unnest(to_tsvector('${KEYWORD_TS_CONFIG}', $1)) AS u`,
    [text],
    { prepare: true },
  );
  return rows[0]?.lexemes ?? [];
}

/** The vector, model and candidate conditions of a semantic statement (what `listing` left to check). */
function semanticParams(search: SemanticSearch, listing: CandidateListing): { params: SqlParams; vector: string; model: string; conditions: string[] } {
  const params = new SqlParams();
  const vector = params.add(pgvector.toSql(Array.from(search.vector)) as string, `vector(${search.dimension})`);
  const model = params.add(search.model, 'text');
  const filters = listing.filtersListed ? {} : search.filters; // listed: every listed file passes them
  const conditions = buildCandidateConditions(search.query, filters, params, 'f', { files: null, unlisted: listing.unlisted });
  return { params, vector, model, conditions };
}

/**
 * Chunks scored again exactly per file asked for: the best of the probed lists' entries by their packed vectors
 * (vectors/vector-lists.ts), whose scores are off by at most ~0.004, so the exact best chunks are among them; a
 * file's several chunks compete for places, and a filter or a deleted chunk takes some: when too few files come
 * back, the search asks for 4 times as many, up to MAX_CANDIDATES_PER_FILE, then probes 4 times as many lists.
 * Two a file to begin with: on the ladder's 5k and 100k rungs the 300 SciFact test queries' best 100 files are the
 * same from 2 a file as from 8 (1.5 a file changed 42 and 21 of them), and each candidate is an index probe and a
 * heap row of the statement below (4 a file: 3.5 ms of a hybrid search's statement at 100k; 2: 1.9 ms).
 */
const FIRST_CANDIDATES_PER_FILE = 2;
const MAX_CANDIDATES_PER_FILE = 256;

/**
 * The best files by their best chunk, from the vector lists nearest the query and the tail of chunks not packed
 * into lists yet: the lists' best entries and the whole tail scored again exactly from their chunk rows, those
 * that pass the conditions kept, widening to more entries and more lists while too few files come back.
 */
async function semanticByLists(tx: SqlExecutor, vectors: VectorLists, search: SemanticSearch, listing: CandidateListing): Promise<SemanticHitRow[]> {
  const { dimension } = search;
  const { params, vector, model, conditions } = semanticParams(search, listing);
  // Read before the lists: a pack that commits in between leaves its chunks in both (counted once), never in neither.
  const packed = params.add(await vectors.packed(tx), 'bigint');
  const seqsAt = params.values.length;
  const seqs = params.add([] as number[], 'bigint[]');
  const files = params.add(search.limit, 'integer');
  // The files row is joined only for filters. The chunks are found by sequence number (the lists' candidates, then
  // the tail past the watermark): two ranges of one index.
  const sql = `
SELECT c.file_id AS id, max(1 - (c.embedding::vector(${dimension}) <=> ${vector})) AS score
FROM chunks c${conditions.length > 0 ? ' JOIN files f ON f.id = c.file_id' : ''}
WHERE (c.seq = ANY(${seqs}) OR c.seq > ${packed}) AND c.dim = ${dimension} AND c.model = ${model}${conditions.length > 0 ? `\n  AND ${conditions.join('\n  AND ')}` : ''}
GROUP BY c.file_id
ORDER BY score DESC, id
LIMIT ${files}`;
  let found = await vectors.candidates(tx, search.model, dimension, search.vector, 0);
  for (let perFile = FIRST_CANDIDATES_PER_FILE; ; ) {
    const keep = search.limit * perFile;
    params.values[seqsAt] = found.best(keep);
    const rows = (await tx.query<SemanticHitRow>(sql, params.values, { prepare: true })).rows;
    // Every entry of the probed lists was a candidate: more of them would find nothing new.
    const exhausted = found.scored <= keep;
    if (rows.length >= search.limit || (exhausted && found.everyList)) return rows;
    if (!exhausted && perFile < MAX_CANDIDATES_PER_FILE) perFile = Math.min(perFile * 4, MAX_CANDIDATES_PER_FILE);
    else if (!found.everyList) found = await vectors.candidates(tx, search.model, dimension, search.vector, found.probes * 4);
    else return rows;
  }
}

/**
 * The best of the given files by their best chunk, every chunk of theirs compared (no graph: the list is short,
 * CANDIDATE_LIST_LIMIT files at most). The same scores as the graph's, and the exact top where the graph's is near.
 */
async function semanticWithin(tx: SqlExecutor, search: SemanticSearch, fileIds: readonly number[], listing: CandidateListing): Promise<SemanticHitRow[]> {
  if (fileIds.length === 0) return [];
  const { dimension } = search;
  const { params, vector, model, conditions } = semanticParams(search, listing);
  const ids = params.add([...fileIds], 'bigint[]');
  const files = params.add(search.limit, 'integer');
  const sql = `
SELECT c.file_id AS id, max(1 - (c.embedding::vector(${dimension}) <=> ${vector})) AS score
FROM chunks c${conditions.length > 0 ? ' JOIN files f ON f.id = c.file_id' : ''}
WHERE c.file_id = ANY(${ids}) AND c.dim = ${dimension} AND c.model = ${model}${conditions.length > 0 ? `\n  AND ${conditions.join('\n  AND ')}` : ''}
GROUP BY c.file_id
ORDER BY score DESC, id
LIMIT ${files}`;
  return (await tx.query<SemanticHitRow>(sql, params.values, { prepare: true })).rows;
}

export function createSearchRepository(db: SqlDatabase): SearchRepository {
  const vectors = vectorListsOf(db);
  return {
    candidates(query, filters) {
      return db.transaction((tx) => listCandidates(tx, query, filters));
    },

    async keyword(query, options) {
      const { hits, also } = await searchKeyword(db, query, options);
      return { hits, also };
    },

    sealKeywords(maxDocs, budgetMs, slicePostings) {
      return sealKeywordIndex(db, maxDocs, budgetMs, undefined, slicePostings);
    },

    async maintainVectors(batch) {
      const started = performance.now();
      const done = await vectors.maintain(db, batch);
      return { ...done, ms: performance.now() - started };
    },

    unpackedVectors() {
      return vectors.unpacked(db);
    },

    async compactKeywords(slice, start, dueAfterDocs, budgetMs) {
      return compactKeywordIndex(db, slice, start, dueAfterDocs, budgetMs);
    },

    async semantic(search) {
      const { dimension } = search;
      if (!Number.isInteger(dimension) || dimension < 1 || dimension > 16000) throw new RangeError(`bad dimension ${dimension}`);
      if (search.vector.length !== dimension) throw new RangeError('vector length does not match the dimension');
      return db.transaction(async (tx) => {
        await tx.exec('SET LOCAL jit = off');
        // The files of a rare phrase or a narrow filter (keyword/candidates.ts) are scored chunk by chunk, exactly:
        // probing lists for the few chunks that pass would widen to every list.
        const listing = search.listing ?? (await listCandidates(tx, search.query, search.filters, { limit: search.listLimit }));
        return listing.files === null ? semanticByLists(tx, vectors, search, listing) : semanticWithin(tx, search, listing.files, listing);
      });
    },

    async describe(ids, queryText) {
      if (ids.length === 0) return { files: [], lexemes: [] };
      const files = await db.readBytes(
        `SELECT ${FILE_SUMMARY_BYTES_COLUMNS},
                ${db.bytesColumn(`substring(textsend(f.content) FROM 1 FOR ${4 * SNIPPET_SOURCE_CHARS})`)}
         FROM files f WHERE f.id = ANY($1::bigint[])`,
        [ids],
        (rows) => rows.map((row) => ({ ...fileSummaryFromBytes(row), content_head: decodeTextHead(row[FILE_SUMMARY_BYTES_FIELDS]!, SNIPPET_SOURCE_CHARS) })),
      );
      return { files, lexemes: await lexemesOf(db, queryText) };
    },

    lexemes: (queryText) => lexemesOf(db, queryText),

    async facts(ids) {
      if (ids.length === 0) return [];
      const { rows } = await db.query<{ id: number; path: string; extension: string; modified: unknown }>(
        'SELECT id, path, extension, modified FROM files WHERE id = ANY($1::bigint[])',
        [ids],
        { prepare: true },
      );
      return rows.map((r) => ({ id: r.id, path: r.path, extension: r.extension, modified: toIso(r.modified) }));
    },

    async corrections(queryText) {
      // Hundreds of lookups by lexeme (keyword/lexicon.ts) that must use the indexes whatever the statistics say:
      // during a bulk run the tail's statistics are those of an empty table, and a plan scanning the whole tail
      // per variant held PGlite for 25–35 s a search (bench:search stall run, 100k files).
      if (queryText.trim() === '') return [];
      return db.transaction(async (tx) => {
        await tx.exec('SET LOCAL enable_seqscan = off');
        return findCorrections(tx, queryText);
      });
    },

    continueKeywords(fileId, budgetMs = KEYWORD_SLICE_MS) {
      return db.transaction(async (tx) => {
        await tx.exec(sliceBudget(budgetMs));
        const { rows } = await tx.query<{ done: boolean }>('SELECT filesift_keyword_continue($1, $2, $3) AS done', [fileId, KEYWORD_SLICE_PIECES, LARGE_DOCUMENT_POSTINGS]);
        return rows[0]?.done ?? true;
      });
    },

    async pendingKeywords() {
      const { rows } = await db.query<{ file_id: number }>('SELECT file_id::integer AS file_id FROM keyword_pending ORDER BY file_id');
      return rows.map((r) => r.file_id);
    },

    async unsealedKeywords() {
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::integer AS n FROM keyword_docs WHERE doc > (SELECT upto FROM keyword_seal)');
      return rows[0]?.n ?? 0;
    },

    async analyze(part) {
      const table = ANALYZED_TABLES[part];
      if (table === undefined) return null;
      const started = performance.now();
      // Changes are counted per transaction and reach the statistics about a second later: a run's last writes may
      // count only at the next pass, which is soon enough for statistics.
      const { rows } = await db.query<{ stale: boolean }>(
        `SELECT c.reltuples < 0 OR coalesce(s.n_mod_since_analyze, 0) > ${ANALYZE_BASE} + ${ANALYZE_SHARE} * c.reltuples AS stale
         FROM pg_class c LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
         WHERE c.oid = $1::regclass`,
        [table],
        { prepare: true },
      );
      if (rows[0]?.stale !== true) return { outcome: 'unchanged', ms: performance.now() - started };
      await analyzeTable(db, table);
      return { outcome: 'analyzed', ms: performance.now() - started };
    },
  };
}
