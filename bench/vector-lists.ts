/**
 * Would an inverted-file vector index of our own be cheaper than the HNSW graph (issues 13 and 17)? A design
 * probe, not a feature: every chunk vector written pays one HNSW insert on the store's thread (~0.6 ms a vector,
 * ~40 % of a file's store write, `npm run bench:store`), where an inverted file ("IVF": the vectors grouped in
 * lists by their nearest of K centroids, a search scanning the lists of the `probes` centroids nearest the query)
 * would pay one list number. What that costs a search, and what it finds, is what this measures on a built index:
 *   npm run bench:vector-lists -- PGLITE_DIR [--lists 256,1024] [--probes 4,8,16,32] [--queries N] [--sample N]
 *       [--ef 200,400,800] [--graph-only]
 * PGLITE_DIR: a rung of `npm run bench:search` (its `…-100000/pglite`) or the `--keep` copy of `npm run
 * bench:corpus`; copied before it is opened. The queries: SciFact's test queries, embedded by the built-in embedder.
 *
 * For each query: the exact top 50 files (each file by its best chunk's cosine, every chunk compared, in
 * JavaScript) and, against it, the recall@50 of
 *   - the graph: the service's own semantic search (search.repository.ts), its latency on PGlite; with --ef, the
 *     same statement (the 100 nearest chunks, their best 50 files) at each ef_search given;
 *   - IVF rows: the chunks of the probed lists found through a side table (chunk id → list, B-tree on the list)
 *     and compared in SQL: the simplest layout, every candidate a random heap access;
 *   - IVF blocks: each list's vectors packed into one bytea row (file ids and floats), the probed lists' rows read
 *     in one statement and compared in JavaScript: the layout the keyword index's sealed blocks use.
 * The centroids: spherical k-means (Lloyd, 10 rounds) on `sample` vectors, the way a store could train them on a
 * collection's first vectors. The CPU of building the lists is reported, not the design's insert path.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { defaultBuiltinDir, loadEmbedder } from '../src/pipeline/embedders/index.js';
import { parseSearchQuery } from '../src/search/query-parser.js';
import { openPglite } from '../src/store/engines/pglite.js';
import { createSearchRepository } from '../src/store/repositories/search.repository.js';
import { positiveInt, positiveIntList, readBenchArgs } from './lib/cli.js';
import { loadQueries } from './lib/scifact.js';
import { markdownTable, summarize } from './lib/search-bench.js';

const TOP = 50;

const { dir, lists, probes, queryCount, sample, ef, graphOnly } = readBenchArgs(
  {
    command: 'npm run bench:vector-lists --',
    about: 'An inverted-file vector index (lists by nearest centroid) against the HNSW graph: recall@50 and latency on a built index.',
    positional: { name: 'PGLITE_DIR', description: 'a PGlite data directory (a bench:search rung, bench:corpus --keep); copied first' },
    options: {
      lists: { type: 'string', value: 'K,...', default: '256,1024', description: 'numbers of lists (centroids) to try' },
      probes: { type: 'string', value: 'P,...', default: '4,8,16,32', description: 'lists scanned a query' },
      queries: { type: 'string', value: 'N', default: '300', description: 'SciFact test queries asked (at most 300)' },
      sample: { type: 'string', value: 'N', default: '30000', description: 'vectors the centroids are trained on' },
      ef: { type: 'string', value: 'N,...', description: "the graph's statement also at these ef_search (the service asks 2 × the chunks: 200)" },
      'graph-only': { type: 'boolean', description: 'measure the graph alone (no lists)' },
    },
  },
  ({ values, positional }) => {
    if (!positional || !existsSync(positional)) throw new Error('PGLITE_DIR: a PGlite data directory is required');
    return {
      dir: positional,
      lists: positiveIntList('lists', values.lists, [256, 1024]),
      probes: positiveIntList('probes', values.probes, [4, 8, 16, 32]),
      queryCount: positiveInt('queries', values.queries, 300),
      sample: positiveInt('sample', values.sample, 30000),
      ef: values.ef === undefined ? [] : positiveIntList('ef', values.ef),
      graphOnly: values['graph-only'] === true,
    };
  },
);

/** Every chunk vector in memory, unit length, with its file id and index in the file (the chunk's key). */
interface Vectors {
  dim: number;
  model: string;
  idx: Int32Array;
  files: Float64Array;
  data: Float32Array;
}

function normalize(v: Float32Array, at = 0, dim = v.length): void {
  let s = 0;
  for (let i = 0; i < dim; i++) s += v[at + i]! * v[at + i]!;
  const n = Math.sqrt(s) || 1;
  for (let i = 0; i < dim; i++) v[at + i]! /= n;
}

function dotAt(a: Float32Array, at: number, q: Float32Array, dim: number): number {
  let s = 0;
  for (let i = 0; i < dim; i++) s += a[at + i]! * q[i]!;
  return s;
}

/** The best `k` files by their best chunk among the given vector rows. */
function topFiles(v: Vectors, q: Float32Array, rows: Iterable<number>, k = TOP): number[] {
  const best = new Map<number, number>();
  for (const r of rows) {
    const score = dotAt(v.data, r * v.dim, q, v.dim);
    const file = v.files[r]!;
    if (score > (best.get(file) ?? -Infinity)) best.set(file, score);
  }
  return [...best].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, k).map(([f]) => f);
}

function recall(found: readonly number[], exact: readonly number[]): number {
  const set = new Set(found);
  return exact.length === 0 ? 1 : exact.filter((f) => set.has(f)).length / exact.length;
}

/** Spherical k-means: centroids of unit length, each vector to the centroid of the largest dot product. */
function trainCentroids(v: Vectors, k: number, sampleSize: number): Float32Array {
  const n = v.idx.length;
  const step = Math.max(1, Math.floor(n / sampleSize));
  const rows: number[] = [];
  for (let r = 0; r < n && rows.length < sampleSize; r += step) rows.push(r);
  const c = new Float32Array(k * v.dim);
  for (let j = 0; j < k; j++) c.set(vectorAt(v, rows[(j * 7919) % rows.length]!), j * v.dim);
  const assign = new Int32Array(rows.length);
  for (let round = 0; round < 10; round++) {
    rows.forEach((r, i) => (assign[i] = nearest(c, k, vectorAt(v, r))));
    c.fill(0);
    rows.forEach((r, i) => {
      const j = assign[i]!;
      for (let d = 0; d < v.dim; d++) c[j * v.dim + d]! += v.data[r * v.dim + d]!;
    });
    for (let j = 0; j < k; j++) normalize(c, j * v.dim, v.dim);
  }
  return c;
}

/** Row r's vector, a view (no copy). */
const vectorAt = (v: Vectors, r: number): Float32Array => v.data.subarray(r * v.dim, (r + 1) * v.dim);

/** The centroid (of k) with the largest dot product with q. */
function nearest(c: Float32Array, k: number, q: Float32Array): number {
  let best = 0;
  let bestScore = -Infinity;
  for (let j = 0; j < k; j++) {
    const s = dotAt(c, j * q.length, q, q.length);
    if (s > bestScore) [best, bestScore] = [j, s];
  }
  return best;
}

function nearestLists(c: Float32Array, k: number, q: Float32Array, dim: number, p: number): number[] {
  const scores: Array<[number, number]> = [];
  for (let j = 0; j < k; j++) scores.push([j, dotAt(c, j * dim, q, dim)]);
  return scores.sort((a, b) => b[1] - a[1]).slice(0, p).map(([j]) => j);
}

const parseVector = (text: string): number[] => text.slice(1, -1).split(',').map(Number);

async function main(): Promise<void> {
  const copy = mkdtempSync(join(tmpdir(), 'filesift-vector-lists-'));
  cpSync(dir, copy, { recursive: true });
  const db = await openPglite(copy);
  try {
    const { rows: kinds } = await db.query<{ model: string; dim: number; n: number }>(
      'SELECT model, dim, count(*)::integer AS n FROM chunks GROUP BY model, dim ORDER BY n DESC LIMIT 1',
    );
    const kind = kinds[0];
    if (!kind) throw new Error('no chunk vectors in this index');
    const v: Vectors = { dim: kind.dim, model: kind.model, idx: new Int32Array(kind.n), files: new Float64Array(kind.n), data: new Float32Array(kind.n * kind.dim) };
    let n = 0;
    for (let afterFile = 0, afterIdx = -1; ; ) {
      const { rows } = await db.query<{ file_id: number; idx: number; e: string }>(
        `SELECT file_id, idx, embedding::text AS e FROM chunks WHERE model = $1 AND dim = $2 AND (file_id, idx) > ($3::bigint, $4::integer)
         ORDER BY file_id, idx LIMIT 20000`,
        [v.model, v.dim, afterFile, afterIdx],
      );
      if (rows.length === 0) break;
      for (const r of rows) {
        v.idx[n] = r.idx;
        v.files[n] = Number(r.file_id);
        v.data.set(parseVector(r.e), n * v.dim);
        normalize(v.data, n * v.dim, v.dim);
        n++;
      }
      afterFile = Number(rows[rows.length - 1]!.file_id);
      afterIdx = rows[rows.length - 1]!.idx;
    }
    const files = new Set(v.files).size;
    console.log(`${n} chunk vectors (${v.dim}-d, ${v.model}) of ${files} files in ${dir}; load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);

    const embedder = await loadEmbedder({ builtinDir: defaultBuiltinDir() });
    const queries = loadQueries('test').queries.slice(0, queryCount);
    const vectors = await Promise.all(queries.map(async (q) => embedder.embedQuery(q.text)));
    for (const q of vectors) normalize(q);
    await embedder.close();
    const all = { [Symbol.iterator]: function* () { for (let r = 0; r < n; r++) yield r; } };
    const exact = vectors.map((q) => topFiles(v, q, all));

    const table: (string | number)[][] = [];
    // The graph: the service's semantic search, as a search asks it.
    const search = createSearchRepository(db);
    const graphMs: number[] = [];
    const graphRecall: number[] = [];
    for (let i = 0; i < vectors.length; i++) {
      const started = performance.now();
      const hits = await search.semantic({ query: parseSearchQuery(queries[i]!.text), filters: {}, vector: vectors[i]!, model: v.model, dimension: v.dim, limit: TOP });
      graphMs.push(performance.now() - started);
      graphRecall.push(recall(hits.map((h) => Number(h.id)), exact[i]!));
    }
    table.push(['HNSW graph (as built)', '–', '–', '–', mean(graphRecall).toFixed(3), summarize(graphMs).p50, '–']);
    for (const efSearch of ef) {
      const ms: number[] = [];
      const recalls: number[] = [];
      for (let i = 0; i < vectors.length; i++) {
        const started = performance.now();
        const found = await graphSearch(db, v, vectors[i]!, efSearch);
        ms.push(performance.now() - started);
        recalls.push(recall(found, exact[i]!));
      }
      table.push([`HNSW graph, ef_search ${efSearch}`, '–', '–', '–', mean(recalls).toFixed(3), summarize(ms).p50, '–']);
    }

    for (const k of graphOnly ? [] : lists) {
      const trainStarted = process.cpuUsage();
      const centroids = trainCentroids(v, k, sample);
      const list = new Int32Array(n);
      for (let r = 0; r < n; r++) list[r] = nearest(centroids, k, vectorAt(v, r));
      const trainCpu = cpuSeconds(trainStarted);
      const members: number[][] = Array.from({ length: k }, () => []);
      for (let r = 0; r < n; r++) members[list[r]!]!.push(r);
      await writeLists(db, v, k, members);
      for (const p of probes.filter((p) => p <= k)) {
        const recalls: number[] = [];
        const scanned: number[] = [];
        const rowsMs: number[] = [];
        const blocksMs: number[] = [];
        for (let i = 0; i < vectors.length; i++) {
          const q = vectors[i]!;
          const probed = nearestLists(centroids, k, q, v.dim, p);
          const rows = probed.flatMap((j) => members[j]!);
          scanned.push(rows.length);
          recalls.push(recall(topFiles(v, q, rows), exact[i]!));
          rowsMs.push(await timed(() => rowsSearch(db, v, q, probed)));
          blocksMs.push(await timed(() => blocksSearch(db, v, q, probed)));
        }
        table.push([`IVF, ${k} lists`, String(p), String(Math.round(mean(scanned))), ((1000 * trainCpu) / n).toFixed(3), mean(recalls).toFixed(3), summarize(rowsMs).p50, summarize(blocksMs).p50]);
      }
    }
    const header = ['index', 'lists probed', 'vectors compared a query', 'lists trained and assigned, CPU ms a vector', `recall@${TOP} files vs exact`, 'p50 ms in SQL (graph; IVF rows)', 'p50 ms, IVF blocks in JavaScript'];
    console.log(`\n${markdownTable(header, table)}`);
    console.log(`\n${queries.length} SciFact test queries; load at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    await db.close();
    rmSync(copy, { recursive: true, force: true });
  }
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const cpuSeconds = (since: NodeJS.CpuUsage): number => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
};
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** The lists in both layouts: a side table (chunk id → list, B-tree on list) and one packed row a list. */
async function writeLists(db: Awaited<ReturnType<typeof openPglite>>, v: Vectors, k: number, members: number[][]): Promise<void> {
  await db.exec(`DROP TABLE IF EXISTS bench_chunk_lists; DROP TABLE IF EXISTS bench_list_blocks;
    CREATE TABLE bench_chunk_lists (file_id bigint NOT NULL, idx integer NOT NULL, list integer NOT NULL, PRIMARY KEY (file_id, idx));
    CREATE TABLE bench_list_blocks (list integer PRIMARY KEY, files bytea NOT NULL, vectors bytea NOT NULL)`);
  for (let j = 0; j < k; j++) {
    const rows = members[j]!;
    if (rows.length === 0) continue;
    const packed = new Float32Array(rows.length * v.dim);
    rows.forEach((r, i) => packed.set(vectorAt(v, r), i * v.dim));
    await db.query('INSERT INTO bench_chunk_lists (file_id, idx, list) SELECT unnest($1::bigint[]), unnest($2::integer[]), $3', [
      rows.map((r) => v.files[r]!),
      rows.map((r) => v.idx[r]!),
      j,
    ]);
    const fileIds = Float64Array.from(rows, (r) => v.files[r]!);
    await db.query('INSERT INTO bench_list_blocks (list, files, vectors) VALUES ($1, $2, $3)', [j, new Uint8Array(fileIds.buffer), new Uint8Array(packed.buffer)]);
  }
  await db.exec('CREATE INDEX ON bench_chunk_lists (list); ANALYZE bench_chunk_lists; ANALYZE bench_list_blocks');
}

/** The service's graph statement (semanticByGraph, no filters): the 100 nearest chunks, their best 50 files. */
async function graphSearch(db: Awaited<ReturnType<typeof openPglite>>, v: Vectors, q: Float32Array, efSearch: number): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.exec(`SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL jit = off; SET LOCAL hnsw.ef_search = ${efSearch}`);
    const { rows } = await tx.query<{ id: number }>(
      `WITH s AS MATERIALIZED (
         SELECT c.file_id, 1 - (c.embedding::vector(${v.dim}) <=> $1::vector(${v.dim})) AS score FROM chunks c
         WHERE c.dim = ${v.dim} AND c.model = $2 ORDER BY c.embedding::vector(${v.dim}) <=> $1::vector(${v.dim}) LIMIT ${2 * TOP})
       SELECT s.file_id AS id, max(s.score) AS score FROM s GROUP BY s.file_id ORDER BY score DESC, id LIMIT ${TOP}`,
      [`[${Array.from(q).join(',')}]`, v.model],
    );
    return rows.map((r) => Number(r.id));
  });
}

/** IVF rows: the probed lists' chunks through the side table, compared in SQL. */
async function rowsSearch(db: Awaited<ReturnType<typeof openPglite>>, v: Vectors, q: Float32Array, probed: number[]): Promise<unknown> {
  const { rows } = await db.query(
    `SELECT c.file_id AS id, max(1 - (c.embedding::vector(${v.dim}) <=> $1::vector(${v.dim}))) AS score
     FROM bench_chunk_lists l JOIN chunks c ON c.file_id = l.file_id AND c.idx = l.idx
     WHERE l.list = ANY($2::integer[])
     GROUP BY c.file_id ORDER BY score DESC, id LIMIT ${TOP}`,
    [`[${Array.from(q).join(',')}]`, probed],
  );
  return rows;
}

/** IVF blocks: the probed lists' packed rows (binary results, as the keyword blocks leave), compared in JavaScript. */
async function blocksSearch(db: Awaited<ReturnType<typeof openPglite>>, v: Vectors, q: Float32Array, probed: number[]): Promise<number[]> {
  const best = new Map<number, number>();
  const statement = `SELECT ${db.bytesColumn('files')}, ${db.bytesColumn('vectors')} FROM bench_list_blocks WHERE list = ANY($1::integer[])`;
  await db.readBytes(statement, [`{${probed.join(',')}}`], (rows) => {
    for (const [fileBytes, vectorBytes] of rows) {
      // Copies: the rows may be views on a buffer PGlite reuses, at any byte offset.
      const files = new Float64Array(fileBytes!.slice().buffer);
      const data = new Float32Array(vectorBytes!.slice().buffer);
      files.forEach((file, i) => {
        const score = dotAt(data, i * v.dim, q, v.dim);
        if (score > (best.get(file) ?? -Infinity)) best.set(file, score);
      });
    }
  });
  return [...best].sort((a, b) => b[1] - a[1]).slice(0, TOP).map(([f]) => f);
}

await main();
