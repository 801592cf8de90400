/**
 * The scale ladder of bench:search: one synthetic tree (SciFact's words and lengths, seeded, topical or uniform:
 * bench/lib/synthetic.ts; 1,000 files a folder)
 * and, per engine, one index per rung (5k, 25k, 100k files by default), each grown from the rung below it (a copy
 * of its PGlite data directory, or `CREATE DATABASE … TEMPLATE` on PostgreSQL) by indexing the next folders through
 * the service's API. Every built rung is kept in a cache folder (PGlite) or a named database (PostgreSQL) under a
 * key made of the schema (sql/), the embedder, the kind of corpus and the seed, so a re-run measures at once and a schema change builds
 * afresh. While a rung grows, a probe client searches without pause: its slowest answer is the stall figure (the
 * longest a person's search waited while a bulk run and its upkeep went on).
 */
import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { migrationsDir } from '../../src/paths.js';
import { ensureDatabase, indexDirectory, search, startBenchService, type BenchService } from './bench-service.js';
import { bulkLoad } from './bulk-load.js';
import type { CallFigures } from '../../src/store/call-log.js';
import type { SyntheticKind } from './synthetic.js';
import { summarize, type LatencySummary } from './search-bench.js';

export type Engine = 'pglite' | 'postgres';

export interface LadderOptions {
  engine: Engine;
  /** Rung sizes, ascending, each a multiple of 1,000. */
  rungs: readonly number[];
  /** The synthetic tree (<dir>/files/<k>/<n>.txt) holding at least the largest rung. */
  tree: string;
  /** What kind of synthetic text the tree holds. */
  corpus: SyntheticKind;
  cacheDir: string;
  pgUrl: string;
  /** Queries of the stall probe. */
  queries: readonly string[];
  /** Build every rung again even when cached. */
  rebuild: boolean;
  /**
   * How rungs are filled: 'direct' (bulk-load.ts: rows, vectors and blocks written in bulk; minutes) or 'api' (every
   * file through POST /api/index/directory, the probe searching meanwhile; an hour or more for 100k on PGlite).
   */
  build: 'direct' | 'api';
}

export interface StallFigure {
  /** Searches the probe made while the rung grew and its upkeep ran. */
  searches: number;
  summary: LatencySummary;
  /** The slowest of them, ms. */
  slowestMs: number;
  /** Seconds of indexing, then of upkeep after the last run (sealing, ANALYZE). */
  indexSeconds: number;
  upkeepSeconds: number;
  /** The longest upkeep slice the service timed (the longest a search could wait behind upkeep). */
  longestSliceMs: number;
  /** Files indexed in this build (the rung minus the one below it). */
  files: number;
}

export interface Rung {
  engine: Engine;
  files: number;
  /** Null when the rung came from the cache. */
  stall: StallFigure | null;
  bench: BenchService;
}

export const FOLDER_FILES = 1000;

/** The key of a built index: how it was filled, the schema's migrations, the embedder, the kind and seed of the tree. */
async function ladderKey(seed: number, options: LadderOptions): Promise<string> {
  const hash = createHash('sha256').update(options.build).update(options.corpus);
  for (const name of (await readdir(migrationsDir)).sort()) hash.update(name).update(await readFile(path.join(migrationsDir, name)));
  hash.update(process.env.FILESIFT_MODEL_DIR ?? 'built-in embedder').update(String(seed));
  return hash.digest('hex').slice(0, 10);
}

/** Where a rung lives: a PGlite data directory, or a database name, and its completion marker. */
function rungPlace(options: LadderOptions, key: string, files: number): { dataDir: string; database: string; marker: string } {
  const name = `${options.engine}-${key}-${files}`;
  return {
    dataDir: path.join(options.cacheDir, name),
    database: `filesift_ladder_${key}_${files}`,
    marker: path.join(options.cacheDir, `${name}.complete`),
  };
}

async function admin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function databaseExists(url: string, name: string): Promise<boolean> {
  return admin(url, async (c) => ((await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount ?? 0) > 0);
}

/** Whether a rung was completed earlier and is still there. */
async function cached(options: LadderOptions, place: ReturnType<typeof rungPlace>): Promise<boolean> {
  if ((await readFile(place.marker, 'utf8').catch(() => null)) === null) return false;
  return options.engine === 'pglite' || databaseExists(options.pgUrl, place.database);
}

/** Starts from a copy of the rung below (or nothing): the place is emptied first. */
async function seedFrom(options: LadderOptions, below: ReturnType<typeof rungPlace> | null, place: ReturnType<typeof rungPlace>): Promise<void> {
  await rm(place.marker, { force: true });
  if (options.engine === 'pglite') {
    await rm(place.dataDir, { recursive: true, force: true });
    if (below) await cp(below.dataDir, place.dataDir, { recursive: true });
    return;
  }
  await admin(options.pgUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${place.database} WITH (FORCE)`);
    if (below) await c.query(`CREATE DATABASE ${place.database} TEMPLATE ${below.database}`);
  });
}

function open(options: LadderOptions, place: ReturnType<typeof rungPlace>): Promise<BenchService> {
  return options.engine === 'pglite'
    ? startBenchService({ dataDir: place.dataDir })
    : startBenchService({ pgUrl: options.pgUrl, pgDatabase: place.database, dataDir: place.dataDir });
}

interface ProbeSample {
  /** Round trip seen by the client. */
  ms: number;
  /** The service's own took_ms: much less than `ms` means the wait was before the search started. */
  serverMs: number;
  /** When it was asked, seconds after the probe started. */
  atSeconds: number;
}

/**
 * A client that searches one query after another (hybrid, a 20 ms breath between answers) until stopped: the
 * latencies a person would have seen meanwhile.
 */
function probe(bench: BenchService, queries: readonly string[]): { stop(): Promise<ProbeSample[]> } {
  const samples: ProbeSample[] = [];
  let running = true;
  const t0 = performance.now();
  const loop = (async () => {
    for (let i = 0; running; i++) {
      const started = performance.now();
      const answer = await search(bench, { query: queries[i % queries.length]!, mode: 'hybrid' });
      samples.push({ ms: performance.now() - started, serverMs: answer.took_ms, atSeconds: (started - t0) / 1000 });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return samples;
    },
  };
}

/** The .txt files of folders [from, to) of the tree, in order. */
async function filesOf(tree: string, from: number, to: number): Promise<string[]> {
  const out: string[] = [];
  for (let k = from; k < to; k++) {
    const dir = path.join(tree, 'files', String(k));
    const names = (await readdir(dir)).filter((n) => n.endsWith('.txt')).sort((a, b) => parseInt(a, 10) - parseInt(b, 10));
    out.push(...names.map((n) => path.join(dir, n)));
  }
  return out;
}

/**
 * Indexes folders [from, to) through the API, one run a folder, while a probe client searches; then waits for the
 * upkeep after the runs. Answers what the probe saw.
 */
async function bulkRun(bench: BenchService, options: LadderOptions, from: number, to: number, log: (line: string) => void): Promise<StallFigure> {
  // The first search starts the query embedder's thread (seconds): a start-up cost, not a stall of the bulk run.
  await search(bench, { query: options.queries[0]!, mode: 'hybrid' });
  const watch = probe(bench, options.queries);
  const t0 = performance.now();
  let indexed = 0;
  for (let k = from; k < to; k++) {
    const run = await indexDirectory(bench, path.join(options.tree, 'files', String(k)), false);
    indexed += run.indexed;
    if ((k + 1 - from) % 10 === 0) log(`  … ${(k + 1 - from) * FOLDER_FILES} files (${(indexed / ((performance.now() - t0) / 1000)).toFixed(0)} files/s)`);
  }
  const t1 = performance.now();
  await bench.service.upkeep.idle();
  const t2 = performance.now();
  const samples = await watch.stop();
  const stall: StallFigure = {
    searches: samples.length,
    summary: summarize(samples.map((x) => x.ms)),
    slowestMs: Math.max(...samples.map((x) => x.ms)),
    indexSeconds: (t1 - t0) / 1000,
    upkeepSeconds: (t2 - t1) / 1000,
    longestSliceMs: bench.service.upkeep.state.longestSliceMs,
    files: indexed,
  };
  log(`  ${indexed} files in ${stall.indexSeconds.toFixed(0)} s + upkeep ${stall.upkeepSeconds.toFixed(1)} s; ${samples.length} probe searches; ` +
    `slowest (client ms / server ms @ s): ` +
    [...samples].sort((a, b) => b.ms - a.ms).slice(0, 4).map((x) => `${x.ms.toFixed(0)}/${x.serverMs.toFixed(0)} @${x.atSeconds.toFixed(0)}`).join(', '));
  logCalls(await bench.service.store.calls(), log);
  return stall;
}

/** What the store's calls cost during the run: what a slow search waited behind (src/store/call-log.ts). */
function logCalls(figures: CallFigures, log: (line: string) => void): void {
  const ms = (n: number): string => n.toFixed(0);
  const kinds = Object.entries(figures.kinds).filter(([, f]) => f.priority === 'background').sort(([, a], [, b]) => b.longestMs - a.longestMs);
  log(`  background calls by kind (calls, own ms in all, longest): ${kinds.slice(0, 8).map(([k, f]) => `${k} ${f.calls}, ${ms(f.totalMs)}, ${ms(f.longestMs)}`).join('; ')}`);
  log(`  longest background calls (own ms): ${figures.longestBackground.map((c) => `${c.kind} ${ms(c.ms)}`).join(', ')}`);
  const searchKinds = Object.entries(figures.kinds).filter(([, f]) => f.priority === 'interactive').sort(([, a], [, b]) => b.longestMs - a.longestMs);
  log(`  interactive calls by kind (calls, own ms in all, longest): ${searchKinds.slice(0, 6).map(([k, f]) => `${k} ${f.calls}, ${ms(f.totalMs)}, ${ms(f.longestMs)}`).join('; ')}`);
  if (figures.longestWaits.length > 0) {
    log(`  longest waits of interactive calls behind background calls (kind: ms behind them of ms waited, the longest of them): ` +
      figures.longestWaits.map((w) => `${w.kind}: ${ms(w.backgroundMs)} of ${ms(w.waitedMs)}${w.behind ? `, ${w.behind.kind} ${ms(w.behind.ms)}` : ''}`).join('; '));
  }
}

/**
 * The stall figure on top of the largest rung (built directly): a copy of it, then `folders` more folders through
 * the API with the probe searching, and the copy dropped.
 */
export async function stallRun(options: LadderOptions, folders: number, log: (line: string) => void): Promise<{ rung: number; stall: StallFigure }> {
  const key = await ladderKey(42, options);
  const largest = options.rungs[options.rungs.length - 1]!;
  const source = rungPlace(options, key, largest);
  const copy = rungPlace(options, key, largest + folders * FOLDER_FILES);
  const place = { ...copy, dataDir: `${copy.dataDir}-stall`, database: `${copy.database}_stall`, marker: `${copy.marker}-stall` };
  await seedFrom(options, source, place);
  const bench = await open(options, place);
  try {
    log(`[${options.engine}] stall run: ${folders * FOLDER_FILES} files through the API on top of ${largest} (probe searching meanwhile)`);
    return { rung: largest, stall: await bulkRun(bench, options, largest / FOLDER_FILES, largest / FOLDER_FILES + folders, log) };
  } finally {
    await bench.close();
    if (options.engine === 'pglite') await rm(place.dataDir, { recursive: true, force: true });
    else await admin(options.pgUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${place.database} WITH (FORCE)`));
  }
}

/**
 * Yields each rung open and ready to measure (the caller measures, then calls `next` which closes it): built now
 * (with its stall figure) or taken from the cache.
 */
export async function* ladder(options: LadderOptions, log: (line: string) => void): AsyncGenerator<Rung> {
  await mkdir(options.cacheDir, { recursive: true });
  const key = await ladderKey(42, options);
  let below: { files: number; place: ReturnType<typeof rungPlace> } | null = null;
  for (const files of options.rungs) {
    if (files % FOLDER_FILES !== 0) throw new Error(`rung ${files} is not a multiple of ${FOLDER_FILES}`);
    const place = rungPlace(options, key, files);
    let stall: StallFigure | null = null;
    let bench: BenchService;
    if (!options.rebuild && (await cached(options, place))) {
      log(`[${options.engine}] ${files} files: index reused (${options.engine === 'pglite' ? place.dataDir : place.database})`);
      bench = await open(options, place);
    } else {
      await seedFrom(options, below?.place ?? null, place);
      const first = (below?.files ?? 0) / FOLDER_FILES;
      if (options.build === 'direct') {
        log(`[${options.engine}] ${files} files: loading folders ${first}–${files / FOLDER_FILES - 1} in bulk on top of ${below?.files ?? 0}`);
        const paths = await filesOf(options.tree, first, files / FOLDER_FILES);
        const took = await bulkLoad({ dataDir: place.dataDir, ...(options.engine === 'postgres' ? { pgUrl: await ensureDatabase(options.pgUrl, place.database) } : {}) }, paths, log);
        log(`  loaded in ${took.load.toFixed(0)} s, vector index ${took.vectorIndex.toFixed(0)} s, sealed and analyzed ${took.seal.toFixed(0)} s`);
        bench = await open(options, place);
      } else {
        bench = await open(options, place);
        log(`[${options.engine}] ${files} files: indexing folders ${first}–${files / FOLDER_FILES - 1} on top of ${below?.files ?? 0} (probe searching meanwhile)`);
        stall = await bulkRun(bench, options, first, files / FOLDER_FILES, log);
      }
      await writeFile(place.marker, JSON.stringify({ files, key, build: options.build, builtAt: new Date().toISOString() }));
    }
    // The index the service opened must be the one built: a count that differs means the rung is not what it says.
    const { total_files: indexed } = await bench.call<{ total_files: number }>('GET', '/api/files/stats');
    if (indexed !== files) {
      await bench.close();
      throw new Error(`the ${files}-file rung of ${options.engine} opened with ${indexed} files indexed: rebuild it (--rebuild)`);
    }
    yield { engine: options.engine, files, stall, bench };
    await bench.close();
    below = { files, place };
  }
}
