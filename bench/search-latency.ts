/**
 * Search latency through the real service (POST /api/search/ over loopback HTTP, default limit 50), on PGlite and
 * on PostgreSQL:
 *   1. SciFact (5,183 files, indexed with POST /api/index/directory): the 300 test queries from one client in each
 *      mode; 8 clients at once (hybrid) with nothing else going on; 8 clients while a forced re-index of the same
 *      folder runs. The one-client hybrid numbers are the baseline the others are compared with, and the first
 *      (quiet) indexing run the baseline of the re-index under search load.
 *   2. Scale: N synthetic files (SciFact words and lengths; default 100,000, PGlite) indexed the same way, then
 *      the test queries from one client in each mode, compared with the SciFact numbers of the same engine.
 *
 *   npm run bench:search                                  (everything; PostgreSQL only when a server answers)
 *   npm run bench:search -- --engine pglite               (one engine: pglite | postgres | both)
 *   npm run bench:search -- --skip-scale                  (SciFact only)
 *   npm run bench:search -- --skip-scifact --scale 20000  (only the scale part, 20,000 files)
 *   npm run bench:search -- --scale-engine both           (the scale part on both engines; default pglite)
 *   npm run bench:search -- --scale-dir /tmp/fs-100k      (keep the generated files there; re-runs reuse them)
 *   npm run bench:search -- --pg postgres://postgres@127.0.0.1:55432/postgres
 *   npm run bench:search -- --clients 8 --queries 300
 *
 * PostgreSQL: --pg, else TEST_DATABASE_URL, else the server `bash .ci/postgres.sh` starts; each engine run works in a
 * scratch database created for it and dropped afterwards. FILESIFT_MODEL_DIR set: the service embeds with that model.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { indexDirectory, search, startBenchService, startDirectoryRun, type BenchService, type IndexedRun } from './lib/bench-service.js';
import { checkSciFact, loadDocs, loadQueries } from './lib/scifact.js';
import { choiceOption, listOption, nonNegativeInt, positiveInt, readBenchArgs, type BenchCommand, type BenchOptions } from './lib/cli.js';
import { markdownTable, summarize, type LatencySummary } from './lib/search-bench.js';
import { writeSyntheticTree } from './lib/synthetic.js';

const MODES = ['hybrid', 'keyword', 'semantic'] as const;
type Mode = (typeof MODES)[number];
type Engine = 'pglite' | 'postgres';
const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:55432/postgres';
/** Queries asked (and not counted) before each measured pass: caches, the query embedder's first calls. */
const WARM_UP = 20;
/** The issue's targets: SciFact (5k files) on PGlite, one client. */
const TARGET_P50_MS = 20;
const TARGET_P95_MS = 60;

interface Sample {
  /** Round trip seen by the client: request sent → JSON answer parsed. */
  ms: number;
  /** The service's own took_ms. */
  serverMs: number;
}

interface Measured {
  samples: Sample[];
  seconds: number;
  /** CPU time of this whole process meanwhile (service, PGlite's worker, clients), milliseconds. */
  cpuMs: number;
}

interface LatencyRow {
  engine: Engine;
  files: number;
  scenario: string;
  mode: Mode;
  client: LatencySummary;
  server: LatencySummary;
  perSecond: number;
  /**
   * CPU milliseconds of this process per query: steadier than wall time on a busy machine. On PGlite it holds the
   * database's work, on PostgreSQL not (the server is another process). Null when indexing ran meanwhile.
   */
  cpuPerQuery: number | null;
  /** The row this one is compared with (its p50), if any. */
  baseline?: LatencyRow;
  /** Whether the issue's targets apply to this row. */
  targeted?: boolean;
}

interface IndexingRow {
  engine: Engine;
  what: string;
  run: IndexedRun;
  bytes?: number;
  baseline?: IndexedRun;
}

/**
 * `clients` clients asking queries[i % n] for i = 0, 1, 2... (one shared cursor) until `more(i)` says stop; each
 * waits for its answer before asking again. Answers every sample and the wall time.
 */
async function drive(
  bench: BenchService,
  queries: readonly string[],
  mode: Mode,
  clients: number,
  more: (i: number) => boolean,
  extra: { facets?: boolean } = {},
): Promise<Measured> {
  const samples: Sample[] = [];
  let next = 0;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (more(next)) {
        const query = queries[next++ % queries.length]!;
        const started = performance.now();
        const answer = await search(bench, { query, mode, ...extra });
        samples.push({ ms: performance.now() - started, serverMs: answer.took_ms });
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return { samples, seconds: (performance.now() - t0) / 1000, cpuMs: (cpu.user + cpu.system) / 1000 };
}

function row(engine: Engine, files: number, scenario: string, mode: Mode, measured: Measured, indexing = false): LatencyRow {
  return {
    engine,
    files,
    scenario,
    mode,
    client: summarize(measured.samples.map((s) => s.ms)),
    server: summarize(measured.samples.map((s) => s.serverMs)),
    perSecond: measured.samples.length / measured.seconds,
    cpuPerQuery: indexing ? null : measured.cpuMs / measured.samples.length,
  };
}

function describeRow(r: LatencyRow): string {
  return `  ${r.scenario}, ${r.mode}: p50 ${r.client.p50.toFixed(1)} ms, p95 ${r.client.p95.toFixed(1)}, p99 ${r.client.p99.toFixed(1)} ` +
    `(server p50 ${r.server.p50.toFixed(1)}; ${r.client.n} queries, ${r.perSecond.toFixed(1)}/s` +
    `${r.cpuPerQuery === null ? '' : `; CPU ${r.cpuPerQuery.toFixed(1)} ms/query`})`;
}

/** One client, each query once, in every mode (after a warm-up in that mode). */
async function singleClientRows(bench: BenchService, engine: Engine, files: number, queries: readonly string[], modes: readonly Mode[]): Promise<LatencyRow[]> {
  const rows: LatencyRow[] = [];
  for (const mode of modes) {
    await drive(bench, queries, mode, 1, (i) => i < Math.min(WARM_UP, queries.length));
    const r = row(engine, files, '1 client', mode, await drive(bench, queries, mode, 1, (i) => i < queries.length));
    console.log(describeRow(r));
    rows.push(r);
  }
  return rows;
}

async function embedderLabel(bench: BenchService): Promise<string> {
  const status = await bench.call<{ embedder: { kind: string | null; model: string | null; dimension?: number; reason?: string } }>('GET', '/api/status/');
  const e = status.embedder;
  return e.kind ? `${e.kind} ${e.model} (${e.dimension}-d)` : `none (${e.reason ?? 'unavailable'}: semantic rows fail)`;
}

interface Options {
  queries: string[];
  modes: Mode[];
  clients: number;
  pgUrl: string;
}

async function start(engine: Engine, options: Options): Promise<BenchService> {
  const bench = await startBenchService(engine === 'postgres' ? { pgUrl: options.pgUrl } : {});
  console.log(`\n[${engine}] service ${bench.url}; embedder ${await embedderLabel(bench)}`);
  return bench;
}

/** Part 1: SciFact on one engine. */
async function sciFactPart(engine: Engine, filesDir: string, options: Options, out: { latency: LatencyRow[]; indexing: IndexingRow[] }): Promise<void> {
  const bench = await start(engine, options);
  try {
    const quiet = await indexDirectory(bench, filesDir, true);
    console.log(`  indexed ${quiet.indexed} files (${quiet.failed} failed) in ${quiet.seconds.toFixed(1)} s`);
    const files = quiet.totalFiles;
    out.indexing.push({ engine, what: `SciFact, ${files} files, nothing else running`, run: quiet, bytes: await bench.databaseBytes() });

    const single = await singleClientRows(bench, engine, files, options.queries, options.modes);
    for (const r of single) r.targeted = engine === 'pglite';
    out.latency.push(...single);
    const baseline = single.find((r) => r.mode === 'hybrid') ?? single[0];
    const mode: Mode = baseline?.mode ?? 'hybrid';

    // The web app asks for facets with the first page: their cost over the same queries, one client.
    await drive(bench, options.queries, mode, 1, (i) => i < Math.min(WARM_UP, options.queries.length), { facets: true });
    const faceted = row(engine, files, '1 client + facets', mode, await drive(bench, options.queries, mode, 1, (i) => i < options.queries.length, { facets: true }));
    if (baseline) faceted.baseline = baseline;
    console.log(describeRow(faceted));
    out.latency.push(faceted);

    const n = options.clients;
    const idle = row(engine, files, `${n} clients`, mode, await drive(bench, options.queries, mode, n, (i) => i < 2 * options.queries.length));
    console.log(describeRow(idle));

    // A forced re-index of the same folder: every file parsed, analysed, embedded and written again while the
    // clients search; they stop when the run completes.
    const reindex = await startDirectoryRun(bench, filesDir, true);
    let indexing = true;
    const finished = reindex.done.finally(() => {
      indexing = false;
    });
    const busy = row(engine, files, `${n} clients + indexing`, mode, await drive(bench, options.queries, mode, n, () => indexing), true);
    const loaded = await finished;
    console.log(describeRow(busy));
    console.log(`  forced re-index under ${n}-client search: ${loaded.seconds.toFixed(1)} s (quiet first run ${quiet.seconds.toFixed(1)} s)`);
    out.indexing.push({ engine, what: `SciFact forced re-index, ${n} clients searching`, run: loaded, baseline: quiet });
    for (const r of [idle, busy]) if (baseline) r.baseline = baseline;
    out.latency.push(idle, busy);
  } finally {
    await bench.close();
  }
}

/** Part 2: `count` synthetic files on one engine, compared with the SciFact rows of that engine. */
async function scalePart(engine: Engine, count: number, scaleDir: string | undefined, options: Options, out: { latency: LatencyRow[]; indexing: IndexingRow[] }): Promise<void> {
  const root = scaleDir ?? (await mkdtemp(path.join(tmpdir(), 'filesift-scale-')));
  try {
    const t0 = performance.now();
    const tree = await writeSyntheticTree(root, loadDocs().map((d) => d.text), count);
    console.log(`\n${tree.written ? 'wrote' : 'reusing'} ${count} synthetic files under ${tree.files} (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    const bench = await start(engine, options);
    try {
      const unsubscribe = progressPrinter(bench, count);
      let run: IndexedRun;
      try {
        run = await indexDirectory(bench, tree.files, true);
      } finally {
        unsubscribe();
      }
      const bytes = await bench.databaseBytes();
      console.log(`  indexed ${run.indexed} files (${run.failed} failed) in ${run.seconds.toFixed(0)} s; database ${mb(bytes)}`);
      out.indexing.push({ engine, what: `synthetic, ${run.totalFiles} files, nothing else running`, run, bytes });
      const rows = await singleClientRows(bench, engine, run.totalFiles, options.queries, options.modes);
      for (const r of rows) {
        const small = out.latency.find((s) => s.engine === engine && s.scenario === r.scenario && s.mode === r.mode && s.files < r.files);
        if (small) r.baseline = small;
      }
      out.latency.push(...rows);
    } finally {
      await bench.close();
    }
  } finally {
    if (scaleDir === undefined) await rm(root, { recursive: true, force: true });
  }
}

/** Prints a long run's progress every ~10% (the service's index_run_progress events). */
function progressPrinter(bench: BenchService, expected: number): () => void {
  const step = Math.max(1, Math.round(expected / 10));
  let nextAt = step;
  return bench.service.bus.subscribe((e) => {
    if (e.type !== 'index_run_progress') return;
    const d = e.data as { indexed: number; files_per_second: number };
    if (d.indexed < nextAt) return;
    nextAt = (Math.floor(d.indexed / step) + 1) * step;
    console.log(`  … ${d.indexed} indexed (${d.files_per_second.toFixed(0)} files/s)`);
  });
}

function mb(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${(bytes / 1e6).toFixed(0)} MB`;
}

/** Null when the server answers, else why not. */
async function pgProblem(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (err) {
    return err instanceof Error ? err.message || err.name : String(err);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function engines(name: string, value: string): Engine[] {
  const v = choiceOption(name, value, ['pglite', 'postgres', 'both']);
  return v === 'both' ? ['pglite', 'postgres'] : [v];
}

function latencyTable(rows: readonly LatencyRow[]): string {
  return markdownTable(
    ['engine', 'files', 'clients', 'mode', 'queries', 'p50 ms', 'p95 ms', 'p99 ms', 'server p50', 'queries/s', 'CPU ms/query', 'p50 vs baseline', 'target p50 ≤ 20, p95 ≤ 60'],
    rows.map((r) => [
      r.engine,
      String(r.files),
      r.scenario,
      r.mode,
      String(r.client.n),
      r.client.p50,
      r.client.p95,
      r.client.p99,
      r.server.p50,
      r.perSecond,
      r.cpuPerQuery ?? '–',
      r.baseline ? `${(r.client.p50 / r.baseline.client.p50).toFixed(1)}× (${r.baseline.files} files, ${r.baseline.scenario}, ${r.baseline.mode})` : 'baseline',
      r.targeted ? (r.client.p50 <= TARGET_P50_MS && r.client.p95 <= TARGET_P95_MS ? 'met' : 'NOT met') : '',
    ]),
  );
}

function indexingTable(rows: readonly IndexingRow[]): string {
  return markdownTable(
    ['engine', 'run', 'files indexed', 'failed', 'seconds', 'files/s', 'database size', 'vs quiet run'],
    rows.map((r) => [
      r.engine,
      r.what,
      String(r.run.indexed),
      String(r.run.failed),
      r.run.seconds,
      r.run.indexed / r.run.seconds,
      r.bytes === undefined ? '' : mb(r.bytes),
      r.baseline ? `${(r.run.seconds / r.baseline.seconds).toFixed(2)}× time` : '',
    ]),
  );
}

const CLI = {
  command: 'npm run bench:search --',
  about: 'Search latency (POST /api/search/) on PGlite and PostgreSQL: SciFact, then N synthetic files.',
  options: {
    engine: { type: 'string', value: 'pglite|postgres|both', default: 'both', description: 'engines of the SciFact part' },
    'skip-scale': { type: 'boolean', description: 'SciFact only: no synthetic scale part' },
    'skip-scifact': { type: 'boolean', description: 'only the synthetic scale part' },
    scale: { type: 'string', value: 'N', default: '100000', description: 'synthetic files of the scale part' },
    'scale-engine': { type: 'string', value: 'pglite|postgres|both', default: 'pglite', description: 'engines of the scale part' },
    'scale-dir': { type: 'string', value: 'DIR', description: 'keep the generated files there; a re-run reuses them' },
    modes: { type: 'string', value: 'hybrid,keyword,semantic', default: MODES.join(','), description: 'search modes to time' },
    queries: { type: 'string', value: 'N', description: 'SciFact test queries a pass (default all 300)' },
    clients: { type: 'string', value: 'N', default: '8', description: 'concurrent clients of the concurrent passes' },
    pg: { type: 'string', value: 'URL', description: `PostgreSQL server (default TEST_DATABASE_URL, else ${DEFAULT_PG_URL})` },
  },
  notes: [
    'PostgreSQL: --pg, else TEST_DATABASE_URL, else the server `bash .ci/postgres.sh` starts; skipped when none answers.',
    'FILESIFT_MODEL_DIR set: the service embeds with that model.',
  ],
} satisfies BenchCommand<BenchOptions>;

async function main(): Promise<void> {
  const args = readBenchArgs(CLI, ({ values }) => ({
    engines: engines('engine', values.engine),
    scaleEngines: engines('scale-engine', values['scale-engine']),
    /** PostgreSQL asked for by name must answer; with 'both' it is skipped when it does not. */
    pgRequired: values.engine === 'postgres' || values['scale-engine'] === 'postgres',
    scale: values['skip-scale'] ? 0 : nonNegativeInt('scale', values.scale),
    scaleDir: values['scale-dir'],
    skipSciFact: values['skip-scifact'],
    modes: listOption('modes', values.modes, MODES),
    queries: positiveInt('queries', values.queries, undefined),
    clients: positiveInt('clients', values.clients),
    pgUrl: values.pg ?? process.env.TEST_DATABASE_URL ?? DEFAULT_PG_URL,
  }));
  const data = checkSciFact();
  if (!data.ok) {
    console.error(`bench:search cannot run: ${data.reason}`);
    process.exitCode = 2;
    return;
  }
  let chosen = args.engines;
  let scaleEngines = args.scaleEngines;
  const { scale, skipSciFact, modes } = args;
  const all = loadQueries('test').queries.map((q) => q.text);
  const options: Options = { queries: all.slice(0, args.queries ?? all.length), modes, clients: args.clients, pgUrl: args.pgUrl };

  if (chosen.includes('postgres') || (scale > 0 && scaleEngines.includes('postgres'))) {
    const problem = await pgProblem(options.pgUrl);
    if (problem !== null) {
      const why = `PostgreSQL at ${options.pgUrl} does not answer (${problem}). Start one with \`bash .ci/postgres.sh\` (it prints its URL) and pass --pg <url> or set TEST_DATABASE_URL.`;
      if (args.pgRequired) throw new Error(why);
      console.log(`Skipping PostgreSQL: ${why}`);
      chosen = chosen.filter((e) => e !== 'postgres');
      scaleEngines = scaleEngines.filter((e) => e !== 'postgres');
    }
  }

  console.log(`Search latency: ${options.queries.length} SciFact test queries a pass, modes ${modes.join(', ')}, ${options.clients} concurrent clients; ` +
    `engines ${skipSciFact ? '-' : chosen.join(', ')}${scale > 0 ? `; scale ${scale} files on ${scaleEngines.join(', ')}` : ''}; ` +
    `load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'})`);
  const out = { latency: [] as LatencyRow[], indexing: [] as IndexingRow[] };
  const t0 = performance.now();
  if (!skipSciFact) for (const engine of chosen) await sciFactPart(engine, data.files, options, out);
  if (scale > 0) for (const engine of scaleEngines) await scalePart(engine, scale, args.scaleDir, options, out);

  console.log(`\nSearch latency, POST /api/search/ over loopback HTTP (default limit 50), milliseconds; load average at the end ` +
    `${loadavg().map((x) => x.toFixed(1)).join(' ')}; ${((performance.now() - t0) / 60_000).toFixed(1)} min in all:\n`);
  console.log(latencyTable(out.latency));
  console.log(`\nIndexing runs of the benchmark (POST /api/index/directory until index_run_completed; database size = tables and indexes, PGlite WAL not counted):\n`);
  console.log(indexingTable(out.indexing));
  console.log(`\nCommand: npm run bench:search${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
