import pgvector from 'pgvector';
import { buildKeywordQuery, buildCandidateConditions, executeKeywordQuery, KEYWORD_TS_CONFIG, type KeywordHitRow, type KeywordQueryOptions } from '../../search/keyword-query.js';
import type { CandidateFilters } from '../../search/candidate-filters.js';
import type { ParsedQuery } from '../../search/query-parser.js';
import { SqlParams } from '../../search/sql-params.js';
import type { SqlDatabase } from '../sql.js';
import { toIso } from '../time.js';

export interface SemanticSearch {
  query: ParsedQuery;
  filters: CandidateFilters;
  vector: Float32Array;
  /** Identity of the model the vector was made with: only chunks of the same model are compared. */
  model: string;
  dimension: number;
  /** Files to return (best chunk per file). */
  limit: number;
}

export interface SemanticHitRow {
  id: number;
  /** Cosine similarity of the file's best chunk. */
  score: number;
}

/** A result file as the search answer shows it, with the opening of its text to cut the snippet from. */
export interface SearchFileRow {
  id: number;
  file_path: string;
  filename: string;
  extension: string;
  created: string | null;
  modified: string | null;
  accessed: string | null;
  title: string;
  summary: string;
  keywords: string[];
  status: 'indexed' | 'failed';
  size: number;
  /** The first SNIPPET_SOURCE_CHARS characters of the extracted text. */
  content_head: string;
}

export interface SearchRepository {
  keyword(query: ParsedQuery, options: KeywordQueryOptions): Promise<KeywordHitRow[]>;
  semantic(search: SemanticSearch): Promise<SemanticHitRow[]>;
  /** The files of the given ids (in no particular order). */
  describe(ids: number[]): Promise<SearchFileRow[]>;
  /** The keyword index's lexemes of a text (its words stemmed, stop words left out), each once. */
  lexemes(text: string): Promise<string[]>;
  /** Refreshes planner statistics and the visibility map after a burst of writes (PGlite has no autovacuum). */
  maintain(): Promise<void>;
}

/** Chunk candidates fetched per file asked for: a file's several chunks compete for the top places. */
const CHUNKS_PER_FILE = 4;
/**
 * Text the snippet is cut from: the opening of a huge document, not all of it, crosses into JavaScript. left()
 * counts characters (slow in WASM: 2 ms for 50 abstracts), so text that is short in bytes is taken whole.
 */
const SNIPPET_SOURCE_CHARS = 20_000;

export function createSearchRepository(db: SqlDatabase): SearchRepository {
  return {
    async keyword(query, options) {
      const statement = buildKeywordQuery(query, options);
      return statement ? executeKeywordQuery(db, statement) : [];
    },

    async semantic(search) {
      const { dimension } = search;
      if (!Number.isInteger(dimension) || dimension < 1 || dimension > 16000) throw new RangeError(`bad dimension ${dimension}`);
      if (search.vector.length !== dimension) throw new RangeError('vector length does not match the dimension');
      const params = new SqlParams();
      const vector = params.add(pgvector.toSql(Array.from(search.vector)) as string, `vector(${dimension})`);
      const model = params.add(search.model, 'text');
      const conditions = buildCandidateConditions(search.query, search.filters, params, 'f');
      const chunkLimit = search.limit * CHUNKS_PER_FILE;
      const chunks = params.add(chunkLimit, 'integer');
      const files = params.add(search.limit, 'integer');
      // The ORDER BY expression and `dim = N` match the partial HNSW index of this dimension (ensureVectorIndex),
      // so the scan walks the graph; relaxed iterative scanning keeps going until enough rows pass the filters.
      // The files row is joined only for filters: a lookup per chunk is a tenth of an unfiltered query's time.
      const sql = `
SELECT s.file_id AS id, max(s.score) AS score
FROM (
  SELECT c.file_id, 1 - (c.embedding::vector(${dimension}) <=> ${vector}) AS score
  FROM chunks c${conditions.length > 0 ? ' JOIN files f ON f.id = c.file_id' : ''}
  WHERE c.dim = ${dimension} AND c.model = ${model}${conditions.length > 0 ? `\n    AND ${conditions.join('\n    AND ')}` : ''}
  ORDER BY c.embedding::vector(${dimension}) <=> ${vector}
  LIMIT ${chunks}
) s
GROUP BY s.file_id
ORDER BY score DESC, id
LIMIT ${files}`;
      return db.transaction(async (tx) => {
        await tx.query(`SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(40, chunkLimit))}`);
        await tx.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
        await tx.query('SET LOCAL jit = off');
        return (await tx.query<SemanticHitRow>(sql, params.values)).rows;
      });
    },

    async describe(ids) {
      if (ids.length === 0) return [];
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT f.id, f.path, f.filename, f.extension, f.created, f.modified, f.accessed, f.title, f.summary,
                f.keywords, f.status, f.size,
                CASE WHEN octet_length(f.content) <= ${SNIPPET_SOURCE_CHARS} THEN f.content
                     ELSE left(f.content, ${SNIPPET_SOURCE_CHARS}) END AS content_head
         FROM files f WHERE f.id = ANY($1::bigint[])`,
        [ids],
      );
      return rows.map((r) => ({
        id: r.id as number,
        file_path: r.path as string,
        filename: r.filename as string,
        extension: r.extension as string,
        created: toIso(r.created),
        modified: toIso(r.modified),
        accessed: toIso(r.accessed),
        title: r.title as string,
        summary: r.summary as string,
        keywords: r.keywords as string[],
        status: r.status as 'indexed' | 'failed',
        size: r.size as number,
        content_head: (r.content_head as string | null) ?? '',
      }));
    },

    async lexemes(text) {
      const { rows } = await db.query<{ lexemes: string[] }>(
        `SELECT coalesce(array_agg(u.lexeme), '{}') AS lexemes FROM unnest(to_tsvector('${KEYWORD_TS_CONFIG}', $1)) AS u`,
        [text],
      );
      return rows[0]?.lexemes ?? [];
    },

    async maintain() {
      await db.exec('VACUUM (ANALYZE) files, chunks, file_terms, file_segments, keyword_docs');
    },
  };
}
