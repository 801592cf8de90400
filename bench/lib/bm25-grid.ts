/**
 * Fast BM25F parameter sweeps for the ranking experiment. The postings, lengths and statistics are read once
 * from the keyword index tables (so tokenisation and stemming are exactly the database's); each grid point is
 * then scored in JavaScript with the same formula as src/search/bm25.ts. The experiment re-runs the chosen
 * points through the real SQL (keyword-query.ts) to confirm both agree.
 */
import { bm25Idf, type FieldWeights } from '../../src/store/keyword/bm25.js';
import { KEYWORD_TS_CONFIG } from '../../src/store/keyword/query.js';
import type { SqlExecutor } from '../../src/store/sql.js';

export interface GridPoint {
  k1: number;
  b: number;
  queryTermFrequency: boolean;
  weights: FieldWeights;
}

interface QueryPostings {
  docs: Int32Array; // dense doc index per posting
  tf: Float32Array; // 4 per posting: name, keywords, summary, content
  idf: Float64Array;
  qtf: Float64Array;
}

export interface GridData {
  /** dense doc index -> file id */
  fileIds: number[];
  lengths: Float64Array; // 4 per doc
  docCount: number;
  totalLengths: [number, number, number, number];
  queries: Map<string, QueryPostings>;
}

/** Reads what BM25 needs for these queries (id -> text) from the keyword index. */
export async function loadGridData(db: SqlExecutor, queries: ReadonlyMap<string, string>): Promise<GridData> {
  const docsRes = await db.query<{ file_id: number; len_a: number; len_b: number; len_c: number; len_d: number }>(
    'SELECT file_id, len_a, len_b, len_c, len_d FROM keyword_docs ORDER BY file_id',
  );
  const fileIds = docsRes.rows.map((r) => r.file_id);
  const index = new Map(fileIds.map((id, i) => [id, i]));
  const lengths = new Float64Array(fileIds.length * 4);
  docsRes.rows.forEach((r, i) => lengths.set([r.len_a, r.len_b, r.len_c, r.len_d], i * 4));
  const stats = (
    await db.query<{ n_docs: number; sum_a: number; sum_b: number; sum_c: number; sum_d: number }>(
      'SELECT n_docs, sum_a, sum_b, sum_c, sum_d FROM keyword_stats',
    )
  ).rows[0];
  if (!stats) throw new Error('keyword_stats is empty');

  const lexemesOf = new Map<string, { lexeme: string; qtf: number }[]>();
  const all = new Set<string>();
  for (const [id, text] of queries) {
    const { rows } = await db.query<{ lexeme: string; qtf: number }>(
      `SELECT lexeme, cardinality(positions) AS qtf FROM unnest(to_tsvector('${KEYWORD_TS_CONFIG}', $1::text))`,
      [text],
    );
    lexemesOf.set(id, rows);
    rows.forEach((r) => all.add(r.lexeme));
  }
  const postings = new Map<string, { doc: number; tf: [number, number, number, number] }[]>();
  const { rows } = await db.query<{ lexeme: string; file_id: number; tf_a: number; tf_b: number; tf_c: number; tf_d: number }>(
    // A freshly loaded experiment database has every posting unsealed, in the tail.
    'SELECT t.lexeme, d.file_id, t.tf_a, t.tf_b, t.tf_c, t.tf_d FROM keyword_tail t JOIN keyword_docs d USING (doc) WHERE t.lexeme = ANY($1::text[])',
    [[...all]],
  );
  for (const r of rows) {
    const list = postings.get(r.lexeme) ?? postings.set(r.lexeme, []).get(r.lexeme)!;
    list.push({ doc: index.get(r.file_id)!, tf: [r.tf_a, r.tf_b, r.tf_c, r.tf_d] });
  }

  const out = new Map<string, QueryPostings>();
  for (const [id, lexemes] of lexemesOf) {
    const n = lexemes.reduce((s, l) => s + (postings.get(l.lexeme)?.length ?? 0), 0);
    const q: QueryPostings = { docs: new Int32Array(n), tf: new Float32Array(n * 4), idf: new Float64Array(n), qtf: new Float64Array(n) };
    let k = 0;
    for (const l of lexemes) {
      const list = postings.get(l.lexeme) ?? [];
      const idf = bm25Idf(list.length, stats.n_docs);
      for (const p of list) {
        q.docs[k] = p.doc;
        q.tf.set(p.tf, k * 4);
        q.idf[k] = idf;
        q.qtf[k] = l.qtf;
        k++;
      }
    }
    out.set(id, q);
  }
  return {
    fileIds,
    lengths,
    docCount: stats.n_docs,
    totalLengths: [stats.sum_a, stats.sum_b, stats.sum_c, stats.sum_d],
    queries: out,
  };
}

/** Top-`depth` file ids per query at one grid point; ties broken by file id, as the SQL does. */
export function rankGrid(data: GridData, point: GridPoint, depth = 100): Map<string, number[]> {
  const w = [point.weights.name, point.weights.keywords, point.weights.summary, point.weights.content] as const;
  const n = data.fileIds.length;
  const dl = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    dl[i] = w[0] * data.lengths[i * 4]! + w[1] * data.lengths[i * 4 + 1]! + w[2] * data.lengths[i * 4 + 2]! + w[3] * data.lengths[i * 4 + 3]!;
  }
  const t = data.totalLengths;
  const avgdl = Math.max((w[0] * t[0] + w[1] * t[1] + w[2] * t[2] + w[3] * t[3]) / Math.max(data.docCount, 1), 1e-9);
  const { k1, b } = point;
  const scores = new Float64Array(n);
  const out = new Map<string, number[]>();
  for (const [id, q] of data.queries) {
    const touched: number[] = [];
    for (let k = 0; k < q.docs.length; k++) {
      const tf = w[0] * q.tf[k * 4]! + w[1] * q.tf[k * 4 + 1]! + w[2] * q.tf[k * 4 + 2]! + w[3] * q.tf[k * 4 + 3]!;
      if (!(tf > 0)) continue;
      const d = q.docs[k]!;
      if (scores[d] === 0) touched.push(d);
      const qtf = point.queryTermFrequency ? q.qtf[k]! : 1;
      scores[d] = scores[d]! + (qtf * q.idf[k]! * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * dl[d]!) / avgdl));
    }
    touched.sort((x, y) => scores[y]! - scores[x]! || data.fileIds[x]! - data.fileIds[y]!);
    out.set(
      id,
      touched.slice(0, depth).map((d) => data.fileIds[d]!),
    );
    for (const d of touched) scores[d] = 0;
  }
  return out;
}
