/**
 * Would an inverted-file vector index of our own be cheaper than the HNSW graph (issues 13 and 17)? A design
 * probe, not a feature: every chunk vector written pays one HNSW insert on the store's thread (~0.6 ms a vector,
 * ~40 % of a file's store write, `npm run bench:store`), where an inverted file ("IVF": the vectors grouped in
 * lists by their nearest of K centroids, a search scanning the lists of the `probes` centroids nearest the query)
 * would pay one list number. What that costs a search, and what it finds, is what this measures on a built index:
 *   npm run bench:vector-lists -- PGLITE_DIR [--lists 256,1024] [--probes 4,8,16,32] [--queries N] [--sample N]
 *       [--ef 200,400,800] [--graph-only] [--grow 256 [--beam 4] [--rows] [--pack-every 5000]] [--ivfflat 256] [--nav 4]
 * PGLITE_DIR: a rung of `npm run bench:search` (its `…-100000/pglite`) or the `--keep` copy of `npm run
 * bench:corpus`; copied before it is opened. The queries: SciFact's test queries, embedded by the built-in embedder.
 *
 * For each query: the exact top 50 files (each file by its best chunk's cosine, every chunk compared, in
 * JavaScript) and, against it, the recall@50 of
 *   - as built: the service's own semantic search (search.repository.ts; the vector lists since sql/0021, the HNSW
 *     graph on an index made before), its latency on PGlite; with --ef, pgvector's HNSW graph (m 8,
 *     ef_construction 32, built first when the index has none) and the statement the service used with it (the 100
 *     nearest chunks, their best 50 files) at each ef_search given;
 *   - IVF rows: the chunks of the probed lists found through a side table (chunk id → list, B-tree on the list)
 *     and compared in SQL: the simplest layout, every candidate a random heap access;
 *   - IVF blocks: each list's vectors packed into one bytea row (file ids and floats), the probed lists' rows read
 *     in one statement and compared in JavaScript: the layout the keyword index's sealed blocks use; the same
 *     rows stored uncompressed (STORAGE EXTERNAL), and packed to bytes (bench/lib/vectors/layout.ts);
 *   - --grow S: the store's design (bench/lib/vectors/lists.ts): no training, the vectors in file order (as a bulk run
 *     brings them) each join the list found down the split tree (--beam nodes kept a level), a list past S
 *     vectors split in two; its lists packed to bytes, one row each, the probed rows scored in JavaScript. The
 *     CPU of growing them (assigning, joining, splitting) is the design's insert path, a vector's share; with
 *     --rows the same lists also as rows clustered by list in a covering B-tree (halfvec), inserted a file at a
 *     time (their insert CPU) and searched in SQL; with --pack-every T what packing a tail into the lists every T
 *     vectors would write, each list it touches rewritten whole (computed, no database);
 *   - --ivfflat K: pgvector's own inverted file (ivfflat, K lists trained on the whole index in one CREATE INDEX,
 *     its CPU reported) with the service's statement, at each --probes;
 *   - --nav P: a graph over each file's chunk vectors pooled to at most P (runs of neighbours averaged), then
 *     every chunk of the 2 × or 4 × 50 candidate files compared exactly (fewer graph inserts a long file).
 * The centroids of --lists: spherical k-means (Lloyd, 10 rounds) on `sample` vectors, the way a store could train
 * them on a collection's first vectors; the CPU of building those lists is reported, not an insert path.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { defaultBuiltinDir, loadEmbedder } from '../src/pipeline/embedders/index.js';
import { parseSearchQuery } from '../src/search/query-parser.js';
import { packedStride, packVectors, scorePacked } from '../src/store/vectors/layout.js';
import { packedVectors } from '../src/store/repositories/files.repository.js';
import { growLists, normalizeAt } from '../src/store/vectors/lists.js';
import { openPglite } from '../src/store/engines/pglite.js';
import { createSearchRepository } from '../src/store/repositories/search.repository.js';
import { positiveInt, positiveIntList, readBenchArgs } from './lib/cli.js';
import { loadQueries } from './lib/scifact.js';
import { markdownTable, summarize } from './lib/search-bench.js';

const TOP = 50;

const { dir, lists, probes, queryCount, sample, ef, nav, ivfflat, grow, beam: beams, rows: asRows, packEvery, graphOnly } = readBenchArgs(
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
      ivfflat: { type: 'string', value: 'K,...', description: "pgvector's own inverted-file index (ivfflat) with K lists, built on the whole index, searched at each --probes" },
      grow: { type: 'string', value: 'S,...', description: 'our lists grown by splitting (bench/lib/vectors/lists.ts), a list split past S vectors, int8 blocks; searched at each --probes' },
      beam: { type: 'string', value: 'B,...', default: '4', description: 'with --grow: the nodes kept a level on the way down the split tree' },
      rows: { type: 'boolean', description: 'with --grow: the lists also as rows clustered by list (a covering B-tree, halfvec), inserted a file at a time, searched in SQL' },
      'pack-every': { type: 'string', value: 'T,...', description: 'with --grow: bytes rewritten when a tail is packed every T vectors, each list it touches rewritten whole' },
      nav: { type: 'string', value: 'P,...', description: "a graph over each file's vectors pooled to at most P, its candidates' chunks then compared exactly" },
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
      nav: values.nav === undefined ? [] : positiveIntList('nav', values.nav),
      ivfflat: values.ivfflat === undefined ? [] : positiveIntList('ivfflat', values.ivfflat),
      grow: values.grow === undefined ? [] : positiveIntList('grow', values.grow),
      beam: positiveIntList('beam', values.beam, [4]),
      rows: values.rows === true,
      packEvery: values['pack-every'] === undefined ? [] : positiveIntList('pack-every', values['pack-every']),
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
    for (let j = 0; j < k; j++) normalizeAt(c, j * v.dim, v.dim);
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
        normalizeAt(v.data, n * v.dim, v.dim);
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
    for (const q of vectors) normalizeAt(q, 0, q.length);
    await embedder.close();
    const all = { [Symbol.iterator]: function* () { for (let r = 0; r < n; r++) yield r; } };
    const exact = vectors.map((q) => topFiles(v, q, all));

    const table: (string | number)[][] = [];
    /**
     * Each query searched once by `search` (the files it answers): a table row of its recall@50 against the exact
     * answer and its p50 latency in the SQL column, the IVF columns left empty.
     */
    const measured = async (label: string, probed: string, search: (q: Float32Array, i: number) => Promise<readonly number[]>): Promise<(string | number)[]> => {
      const ms: number[] = [];
      const recalls: number[] = [];
      for (let i = 0; i < vectors.length; i++) {
        const started = performance.now();
        const found = await search(vectors[i]!, i);
        ms.push(performance.now() - started);
        recalls.push(recall(found, exact[i]!));
      }
      return [label, probed, '–', '–', mean(recalls).toFixed(3), summarize(ms).p50, '–', '–', '–', '–'];
    };
    // As built: the service's semantic search, as a search asks it.
    const search = createSearchRepository(db);
    table.push(
      await measured('the service\'s semantic search (as built)', '–', async (q, i) =>
        (await search.semantic({ query: parseSearchQuery(queries[i]!.text), filters: {}, vector: q, model: v.model, dimension: v.dim, limit: TOP })).map((h) => Number(h.id)),
      ),
    );
    if (ef.length > 0) {
      const built = process.cpuUsage();
      await db.exec(`CREATE INDEX IF NOT EXISTS chunks_embedding_hnsw_${v.dim} ON chunks USING hnsw ((embedding::vector(${v.dim})) vector_cosine_ops) WITH (m = 8, ef_construction = 32) WHERE dim = ${v.dim}`);
      console.error(`  HNSW graph ready (${cpuSeconds(built).toFixed(1)} CPU-s)`);
    }
    for (const efSearch of ef) table.push(await measured(`HNSW graph, ef_search ${efSearch}`, '–', (q) => graphSearch(db, v, q, efSearch)));

    for (const [maxSize, beam] of grow.flatMap((size) => beams.map((b) => [size, b] as const))) {
      const started = process.cpuUsage();
      const { tree: centroids, members } = growLists(v.data, v.dim, maxSize, beam);
      const growCpu = cpuSeconds(started);
      await writeGrown(db, v, members);
      for (const p of probes) {
        const ms: number[] = [];
        const recalls: number[] = [];
        const floatRecalls: number[] = [];
        const scanned: number[] = [];
        for (let i = 0; i < vectors.length; i++) {
          const q = vectors[i]!;
          const t0 = performance.now();
          const probed = centroids.nearestLists(q, p);
          const found = await grownSearch(db, v, q, probed);
          ms.push(performance.now() - t0);
          recalls.push(recall(found, exact[i]!));
          const rows = probed.flatMap((j) => members[j]!);
          scanned.push(rows.length);
          floatRecalls.push(recall(topFiles(v, q, rows), exact[i]!));
        }
        table.push([`lists grown by splits past ${maxSize}, beam ${beam} (${centroids.count} lists; float32 recall ${mean(floatRecalls).toFixed(3)})`, String(p), String(Math.round(mean(scanned))), ((1000 * growCpu) / n).toFixed(3), mean(recalls).toFixed(3), '–', summarize(ms).p50, '–', '–', '–']);
        console.log(table[table.length - 1]!.join(' | '));
      }
      if (asRows) {
        const inserted = await writeGrownRows(db, v, members);
        for (const p of probes) {
          const label = `the same lists as rows clustered by list (covering B-tree, halfvec; insert ${inserted.toFixed(3)} CPU ms an entry, a file a statement)`;
          table.push(await measured(label, String(p), (q) => grownRowsSearch(db, v, q, centroids.nearestLists(q, p))));
          console.log(table[table.length - 1]!.join(' | '));
        }
      }
      for (const every of packEvery) console.log(packAmplification(v, maxSize, beam, every));
    }

    // The graph is measured above; the same statement then walks the lists (the planner's only index left).
    if (ivfflat.length > 0) await db.exec(`DROP INDEX IF EXISTS chunks_embedding_hnsw_${v.dim}`);
    for (const k of ivfflat) {
      const started = process.cpuUsage();
      await db.exec(`SET maintenance_work_mem = '128MB'; DROP INDEX IF EXISTS bench_ivfflat; CREATE INDEX bench_ivfflat ON chunks USING ivfflat ((embedding::vector(${v.dim})) vector_cosine_ops) WITH (lists = ${k}) WHERE dim = ${v.dim}`);
      const buildCpu = cpuSeconds(started);
      for (const p of probes.filter((p) => p <= k)) {
        table.push(await measured(`pgvector ivfflat, ${k} lists (built in ${buildCpu.toFixed(1)} CPU-s)`, String(p), (q) => graphSearch(db, v, q, 0, p)));
        console.log(table[table.length - 1]!.join(' | '));
      }
      await db.exec('DROP INDEX bench_ivfflat');
    }

    for (const cap of nav) {
      const built = await writeNavigation(db, v, cap);
      for (const perFile of [2, 4]) {
        const label = `graph of ≤ ${cap} pooled vectors a file (${built.rows} rows, built in ${built.cpu.toFixed(1)} CPU-s), ${perFile} × 50 files' chunks compared`;
        table.push(await measured(label, '–', (q) => navigationSearch(db, v, q, TOP * perFile)));
      }
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
        const plainMs: number[] = [];
        const int8Ms: number[] = [];
        const int8Recalls: number[] = [];
        for (let i = 0; i < vectors.length; i++) {
          const q = vectors[i]!;
          const probed = nearestLists(centroids, k, q, v.dim, p);
          const rows = probed.flatMap((j) => members[j]!);
          scanned.push(rows.length);
          recalls.push(recall(topFiles(v, q, rows), exact[i]!));
          rowsMs.push(await timed(() => rowsSearch(db, v, q, probed)));
          blocksMs.push(await timed(() => blocksSearch(db, v, q, probed)));
          plainMs.push(await timed(() => blocksSearch(db, v, q, probed, 'bench_list_plain')));
          let found: number[] = [];
          int8Ms.push(await timed(async () => (found = await int8Search(db, v, q, probed))));
          int8Recalls.push(recall(found, exact[i]!));
        }
        table.push([`IVF, ${k} lists`, String(p), String(Math.round(mean(scanned))), ((1000 * trainCpu) / n).toFixed(3), mean(recalls).toFixed(3), summarize(rowsMs).p50, summarize(blocksMs).p50, summarize(plainMs).p50, summarize(int8Ms).p50, mean(int8Recalls).toFixed(3)]);
      }
    }
    const header = ['index', 'lists probed', 'vectors compared a query', 'lists trained and assigned, CPU ms a vector', `recall@${TOP} files vs exact`, 'p50 ms in SQL (graph; IVF rows)', 'p50 ms, IVF blocks in JavaScript', 'p50 ms, blocks stored uncompressed', 'p50 ms, int8 blocks (uncompressed)', 'recall@50, int8'];
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
    CREATE TABLE bench_list_blocks (list integer PRIMARY KEY, files bytea NOT NULL, vectors bytea NOT NULL);
    DROP TABLE IF EXISTS bench_list_plain; DROP TABLE IF EXISTS bench_list_int8;
    CREATE TABLE bench_list_plain (list integer PRIMARY KEY, files bytea NOT NULL, vectors bytea NOT NULL);
    ALTER TABLE bench_list_plain ALTER COLUMN files SET STORAGE EXTERNAL, ALTER COLUMN vectors SET STORAGE EXTERNAL;
    CREATE TABLE bench_list_int8 (list integer PRIMARY KEY, files bytea NOT NULL, vectors bytea NOT NULL);
    ALTER TABLE bench_list_int8 ALTER COLUMN files SET STORAGE EXTERNAL, ALTER COLUMN vectors SET STORAGE EXTERNAL`);
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
    await db.query('INSERT INTO bench_list_plain (list, files, vectors) VALUES ($1, $2, $3)', [j, new Uint8Array(fileIds.buffer), new Uint8Array(packed.buffer)]);
    await db.query('INSERT INTO bench_list_int8 (list, files, vectors) VALUES ($1, $2, $3)', [j, new Uint8Array(fileIds.buffer), packVectors(packed, v.dim)]);
  }
  await db.exec('CREATE INDEX ON bench_chunk_lists (list); ANALYZE bench_chunk_lists; ANALYZE bench_list_blocks');
}

/**
 * The service's graph statement (semanticByGraph, no filters): the 100 nearest chunks, their best 50 files; with
 * `ivfProbes`, the same statement over pgvector's ivfflat index (the graph dropped before it is built).
 */
async function graphSearch(db: Awaited<ReturnType<typeof openPglite>>, v: Vectors, q: Float32Array, efSearch: number, ivfProbes = 0): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.exec(ivfProbes > 0
      ? `SET LOCAL ivfflat.iterative_scan = relaxed_order; SET LOCAL jit = off; SET LOCAL ivfflat.probes = ${ivfProbes}`
      : `SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL jit = off; SET LOCAL hnsw.ef_search = ${efSearch}`);
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

/**
 * Each file's chunk vectors (in text order) in at most `cap` runs of neighbours, each run's mean made unit length:
 * a graph over those, built once (CREATE INDEX, its CPU returned).
 */
async function writeNavigation(db: Awaited<ReturnType<typeof openPglite>>, v: Vectors, cap: number): Promise<{ rows: number; cpu: number }> {
  await db.exec(`DROP TABLE IF EXISTS bench_nav; CREATE TABLE bench_nav (file_id bigint NOT NULL, part integer NOT NULL, embedding vector(${v.dim}) NOT NULL)`);
  const files: number[] = [];
  const parts: number[] = [];
  const texts: string[] = [];
  const flush = async (): Promise<void> => {
    if (files.length === 0) return;
    await db.query('INSERT INTO bench_nav SELECT unnest($1::bigint[]), unnest($2::integer[]), unnest($3::text[])::vector', [files, parts, texts]);
    files.length = 0;
    parts.length = 0;
    texts.length = 0;
  };
  let rows = 0;
  const n = v.idx.length;
  for (let start = 0; start < n; ) {
    let end = start;
    while (end < n && v.files[end] === v.files[start]) end++;
    const count = end - start;
    const groups = Math.min(cap, count);
    for (let g = 0; g < groups; g++) {
      const from = start + Math.floor((g * count) / groups);
      const to = start + Math.floor(((g + 1) * count) / groups);
      const mean = new Float32Array(v.dim);
      for (let r = from; r < to; r++) for (let d = 0; d < v.dim; d++) mean[d]! += v.data[r * v.dim + d]!;
      normalizeAt(mean, 0, v.dim);
      files.push(v.files[start]!);
      parts.push(g);
      texts.push(`[${Array.from(mean).join(',')}]`);
      rows++;
    }
    if (files.length >= 2000) await flush();
    start = end;
  }
  await flush();
  const started = process.cpuUsage();
  await db.exec(`CREATE INDEX ON bench_nav USING hnsw (embedding vector_cosine_ops) WITH (m = 8, ef_construction = 32); ANALYZE bench_nav`);
  return { rows, cpu: cpuSeconds(started) };
}

/** The graph of pooled vectors for `candidates` files, then every chunk of theirs compared: the best 50 files. */
async function navigationSearch(db: Awaited<ReturnType<typeof openPglite>>, v: Vectors, q: Float32Array, candidates: number): Promise<number[]> {
  return db.transaction(async (tx) => {
    await tx.exec(`SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL jit = off; SET LOCAL hnsw.ef_search = ${Math.min(1000, 8 * candidates)}`);
    const { rows } = await tx.query<{ id: number }>(
      `WITH nav AS MATERIALIZED (
         SELECT n.file_id, n.embedding <=> $1::vector(${v.dim}) AS d FROM bench_nav n ORDER BY n.embedding <=> $1::vector(${v.dim}) LIMIT ${candidates * 2}),
       cand AS (SELECT file_id FROM nav GROUP BY file_id ORDER BY min(d) LIMIT ${candidates})
       SELECT c.file_id AS id, max(1 - (c.embedding::vector(${v.dim}) <=> $1::vector(${v.dim}))) AS score
       FROM chunks c WHERE c.file_id IN (SELECT file_id FROM cand) AND c.dim = ${v.dim} AND c.model = $2
       GROUP BY c.file_id ORDER BY score DESC, id LIMIT ${TOP}`,
      [`[${Array.from(q).join(',')}]`, v.model],
    );
    return rows.map((r) => Number(r.id));
  });
}

/** One row a grown list: its file ids (float64) and its vectors packed to bytes (bench/lib/vectors/layout.ts), uncompressed. */
async function writeGrown(db: Awaited<ReturnType<typeof openPglite>>, v: Vectors, members: number[][]): Promise<void> {
  await db.exec(`DROP TABLE IF EXISTS bench_grown; CREATE TABLE bench_grown (list integer PRIMARY KEY, files bytea NOT NULL, vectors bytea NOT NULL);
    ALTER TABLE bench_grown ALTER COLUMN files SET STORAGE EXTERNAL, ALTER COLUMN vectors SET STORAGE EXTERNAL`);
  for (let j = 0; j < members.length; j++) {
    const rows = members[j]!;
    const data = new Float32Array(rows.length * v.dim);
    rows.forEach((row, i) => data.set(vectorAt(v, row), i * v.dim));
    const fileIds = Float64Array.from(rows, (row) => v.files[row]!);
    await db.query('INSERT INTO bench_grown (list, files, vectors) VALUES ($1, $2, $3)', [j, new Uint8Array(fileIds.buffer), packVectors(data, v.dim)]);
  }
  await db.exec('ANALYZE bench_grown');
}

/**
 * What packing a tail into the grown lists would write: every `every` vectors, each list the window changed is
 * rewritten whole (its vectors packed to bytes, its sequence numbers). No database: the same arrival order.
 */
function packAmplification(v: Vectors, maxSize: number, beam: number, every: number): string {
  const entryBytes = packedStride(v.dim) + 8;
  let touched = new Set<number>();
  let written = 0;
  let largest = 0;
  let packs = 0;
  const pack = (members: readonly (readonly number[])[]): void => {
    let bytes = 0;
    for (const list of touched) bytes += members[list]!.length * entryBytes;
    written += bytes;
    largest = Math.max(largest, bytes);
    packs++;
    touched = new Set();
  };
  let last: readonly (readonly number[])[] = [];
  growLists(v.data, v.dim, maxSize, beam, (row, changed, members) => {
    for (const list of changed) touched.add(list);
    last = members;
    if ((row + 1) % every === 0) pack(members);
  });
  if (touched.size > 0) pack(last);
  const final = v.idx.length * entryBytes;
  return `packing a tail every ${every} vectors (split past ${maxSize}, beam ${beam}): ${packs} packs, ${(written / 1e6).toFixed(0)} MB written for ${(final / 1e6).toFixed(1)} MB of lists (${(written / final).toFixed(1)}×), the largest pack ${(largest / 1e6).toFixed(1)} MB`;
}

/**
 * The grown lists as rows (list, file, chunk, its vector as halfvec) under a covering B-tree on the list, so that
 * a list's entries sit together in the index's pages: inserted a file's chunks a statement, as a store would write
 * them with its chunks (binary vectors, as replaceChunks sends them), then VACUUM (index-only scans need the
 * visibility map). Answers the CPU ms an entry of the first 30,000 entries' inserts.
 */
async function writeGrownRows(db: Awaited<ReturnType<typeof openPglite>>, v: Vectors, members: number[][]): Promise<number> {
  const listOf = new Int32Array(v.idx.length);
  members.forEach((rows, list) => rows.forEach((row) => (listOf[row] = list)));
  await db.exec(`DROP TABLE IF EXISTS bench_entries;
    CREATE TABLE bench_entries (list integer NOT NULL, file_id bigint NOT NULL, idx integer NOT NULL, vec halfvec(${v.dim}) NOT NULL);
    CREATE INDEX bench_entries_list ON bench_entries (list) INCLUDE (file_id, vec)`);
  const insert = async (from: number, to: number): Promise<void> => {
    const vecs: Float32Array[] = [];
    for (let r = from; r < to; r++) vecs.push(vectorAt(v, r));
    await db.query(
      `INSERT INTO bench_entries SELECT l, f, i, subvector($4::vector, (o::integer - 1) * ${v.dim} + 1, ${v.dim})::halfvec(${v.dim})
       FROM unnest($1::integer[], $2::bigint[], $3::integer[]) WITH ORDINALITY AS t (l, f, i, o)`,
      [Array.from(listOf.subarray(from, to)), Array.from(v.files.subarray(from, to)), Array.from(v.idx.subarray(from, to)), packedVectors(vecs)],
      { prepare: true },
    );
  };
  const n = v.idx.length;
  const started = process.cpuUsage();
  let r = 0;
  while (r < Math.min(n, 30_000)) {
    let end = r;
    while (end < n && v.files[end] === v.files[r]) end++;
    await insert(r, end);
    r = end;
  }
  const perEntry = (1000 * cpuSeconds(started)) / Math.max(1, r);
  for (; r < n; r += 150) await insert(r, Math.min(n, r + 150));
  await db.exec('VACUUM bench_entries'); // a statement of its own: VACUUM refuses a transaction block
  await db.exec('ANALYZE bench_entries');
  return perEntry;
}

/** The probed lists' entries nearest the query in SQL (an index-only scan of their ranges): the best 50 files. */
async function grownRowsSearch(db: Awaited<ReturnType<typeof openPglite>>, v: Vectors, q: Float32Array, probed: number[]): Promise<number[]> {
  const { rows } = await db.query<{ file_id: number }>(
    `WITH c AS (SELECT file_id, vec <#> $1::halfvec(${v.dim}) AS d FROM bench_entries WHERE list = ANY($2::integer[]) ORDER BY 2 LIMIT ${8 * TOP})
     SELECT file_id FROM c GROUP BY file_id ORDER BY min(d) LIMIT ${TOP}`,
    [`[${Array.from(q).join(',')}]`, `{${probed.join(',')}}`],
  );
  return rows.map((r) => Number(r.file_id));
}

/** The probed grown lists' rows read in one statement, each vector scored from its bytes: the best 50 files. */
async function grownSearch(db: Awaited<ReturnType<typeof openPglite>>, v: Vectors, q: Float32Array, probed: number[]): Promise<number[]> {
  return packedSearch(db, v, q, `SELECT files, vectors FROM bench_grown WHERE list = ANY($1::integer[])`, probed);
}

/** Rows of (file ids as float64, vectors packed to bytes) that `statement` reads for the probed lists: the best 50 files. */
async function packedSearch(db: Awaited<ReturnType<typeof openPglite>>, v: Vectors, q: Float32Array, statement: string, probed: number[]): Promise<number[]> {
  const best = new Map<number, number>();
  let scores = new Float32Array(1024);
  await db.readBytes(statement, [`{${probed.join(',')}}`], (rows) => {
    for (const [fileBytes, vectorBytes] of rows) {
      // A copy: the reply's bytes may sit at any offset, and float64s need 8-byte alignment.
      const files = new Float64Array(fileBytes!.slice().buffer);
      if (scores.length < files.length) scores = new Float32Array(files.length * 2);
      scorePacked(vectorBytes!, v.dim, q, scores);
      for (let i = 0; i < files.length; i++) {
        const file = files[i]!;
        if (scores[i]! > (best.get(file) ?? -Infinity)) best.set(file, scores[i]!);
      }
    }
  });
  return [...best].sort((a, b) => b[1] - a[1]).slice(0, TOP).map(([f]) => f);
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

/** IVF int8 blocks: as blocksSearch, each vector packed to bytes (bench/lib/vectors/layout.ts), stored uncompressed. */
async function int8Search(db: Awaited<ReturnType<typeof openPglite>>, v: Vectors, q: Float32Array, probed: number[]): Promise<number[]> {
  return packedSearch(db, v, q, `SELECT files, vectors FROM bench_list_int8 WHERE list = ANY($1::integer[])`, probed);
}

/** IVF blocks: the probed lists' packed rows (binary results, as the keyword blocks leave), compared in JavaScript. */
async function blocksSearch(db: Awaited<ReturnType<typeof openPglite>>, v: Vectors, q: Float32Array, probed: number[], table = 'bench_list_blocks'): Promise<number[]> {
  const best = new Map<number, number>();
  const statement = `SELECT ${db.bytesColumn('files')}, ${db.bytesColumn('vectors')} FROM ${table} WHERE list = ANY($1::integer[])`;
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
