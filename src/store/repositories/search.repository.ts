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

/** A result file as the search answer shows it, with a snippet whose matches are marked by \u0001…\u0002. */
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
  marked_snippet: string;
}

export interface SearchRepository {
  keyword(query: ParsedQuery, options: KeywordQueryOptions): Promise<KeywordHitRow[]>;
  semantic(search: SemanticSearch): Promise<SemanticHitRow[]>;
  /** The files of the given ids (in no particular order), with a snippet for the query text. */
  describe(ids: number[], rankText: string): Promise<SearchFileRow[]>;
  /** Refreshes planner statistics and the visibility map after a burst of writes (PGlite has no autovacuum). */
  maintain(): Promise<void>;
}

/** Chunk candidates fetched per file asked for: a file's several chunks compete for the top places. */
const CHUNKS_PER_FILE = 4;
/** Content the snippet is cut from: ts_headline reads its whole input, so huge documents are bounded. */
const SNIPPET_SOURCE_CHARS = 20_000;
export const MARK_START = '\u0001';
export const MARK_END = '\u0002';

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
      const sql = `
SELECT s.file_id AS id, max(s.score) AS score
FROM (
  SELECT c.file_id, 1 - (c.embedding::vector(${dimension}) <=> ${vector}) AS score
  FROM chunks c JOIN files f ON f.id = c.file_id
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

    async describe(ids, rankText) {
      if (ids.length === 0) return [];
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT f.id, f.path, f.filename, f.extension, f.created, f.modified, f.accessed, f.title, f.summary,
                f.keywords, f.status, f.size,
                CASE WHEN $2 = '' OR f.content = '' THEN ''
                     ELSE ts_headline('${KEYWORD_TS_CONFIG}', left(f.content, ${SNIPPET_SOURCE_CHARS}),
                            replace(plainto_tsquery('${KEYWORD_TS_CONFIG}', $2)::text, ' & ', ' | ')::tsquery,
                            'StartSel=${MARK_START}, StopSel=${MARK_END}, MaxWords=35, MinWords=15, MaxFragments=2, FragmentDelimiter=" … "')
                END AS marked_snippet
         FROM files f WHERE f.id = ANY($1::bigint[])`,
        [ids, rankText],
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
        marked_snippet: (r.marked_snippet as string | null) ?? '',
      }));
    },

    async maintain() {
      await db.exec('VACUUM (ANALYZE) files, chunks, file_terms, file_segments, keyword_docs');
    },
  };
}
