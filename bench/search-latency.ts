/**
 * Search latency through the real service (POST /api/search/ over loopback HTTP, default limit 50), on PGlite and
 * on PostgreSQL:
 *   1. SciFact (5,183 files, indexed with POST /api/index/directory): the 300 test queries from one client in each
 *      mode; 8 clients at once (hybrid) with nothing else going on; 8 clients while a forced re-index of the same
 *      folder runs.
 *   2. The scale ladder (bench/lib/ladder.ts): synthetic files (SciFact's words and lengths, seeded; --corpus topical,
 *      each file about one SciFact document, or uniform, words drawn from the whole corpus) at 5k, 25k and 100k files; at each rung one client and 8 clients in every mode; the ratio of the largest rung to the
 *      smallest, the slope and its projection to 1M files; and, when a rung is built, the slowest search a probe
 *      client saw while the bulk run and its upkeep went on. Built rungs are cached (--cache), so a re-run measures
 *      in minutes.
 *
 *   npm run bench:search                                    (everything; PostgreSQL only when a server answers)
 *   npm run bench:search -- --engine pglite                 (one engine: pglite | postgres | both)
 *   npm run bench:search -- --skip-scifact --ladder 5000,25000
 *   npm run bench:search -- --rebuild                       (build the rungs again: the stall figure)
 *   npm run bench:search -- --typing                        (also: each query typed, the searches it supersedes closed)
 *   npm run bench:search -- --pg postgres://postgres@127.0.0.1:55432/postgres --clients 8 --queries 300
 *
 * PostgreSQL: --pg, else TEST_DATABASE_URL, else the server `bash .ci/postgres.sh` starts. The SciFact part works in
 * a scratch database dropped afterwards; the ladder keeps its databases. FILESIFT_MODEL_DIR set: the service embeds
 * with that model.
 */
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { drive, indexDirectory, search, startBenchService, startDirectoryRun, type BenchService, type IndexedRun, type Measured, type Sample, type Scope } from './lib/bench-service.js';
import { checkSciFact, loadDocs, loadQueries } from './lib/scifact.js';
import { choiceOption, listOption, nonNegativeInt, positiveInt, readBenchArgs, type BenchCommand, type BenchOptions } from './lib/cli.js';
import { markdownTable, summarize, type LatencySummary } from './lib/search-bench.js';
import { SYNTHETIC_KINDS, writeSyntheticTree, type SyntheticKind } from './lib/synthetic.js';
import { FOLDER_FILES, ladder, stallRun, type LadderOptions, type StallFigure } from './lib/ladder.js';

const MODES = ['hybrid', 'keyword', 'semantic'] as const;
type Mode = (typeof MODES)[number];
type Engine = 'pglite' | 'postgres';
const DEFAULT_RUNGS = [5000, 25_000, 100_000];
const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:55432/postgres';
/**
 * SciFact train queries asked (and not counted) before each single-client pass: the database's caches, the
 * compilers' tiers, the query embedder's first calls. Train queries, not test ones (20 of the test queries before),
 * so that no measured query has just read its own postings. On the 100k rung the machine's minute moved the figures
 * more than the warm-up did (docs/benchmarks/search-latency.md, stop 39).
 */
const DEFAULT_WARM_UP = 100;
/** Targets at 100k files on PGlite, one client (keyword; hybrid). */
const TARGETS: Partial<Record<Mode, { p50: number; p95: number }>> = { keyword: { p50: 25, p95: 60 }, hybrid: { p50: 35, p95: 80 } };

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
  /** Whether the targets at 100k files apply to this row. */
  targeted?: boolean;
  /** A ladder row (synthetic files), not a SciFact one. */
  synthetic?: boolean;
}

interface StallRow {
  engine: Engine;
  /** Files in the index when the bulk run started. */
  rung: number;
  stall: StallFigure;
}

interface Results {
  latency: LatencyRow[];
  indexing: IndexingRow[];
  stalls: StallRow[];
}

interface IndexingRow {
  engine: Engine;
  what: string;
  run: IndexedRun;
  bytes?: number;
  baseline?: IndexedRun;
}

/** Word-by-word prefixes of a query typed before it: the searches its last keystroke supersedes. */
const TYPED_PREFIXES = 5;
/**
 * Between two of them (ms): shorter than a search, as when searches answer slower than a person types past the web
 * app's 250 ms pause (a large collection, a bulk run going on), so each superseded search is under way when closed.
 */
const TYPING_GAP_MS = 5;

/**
 * Typing, as the web app searches while a person types faster than the searches answer: each query's last
 * TYPED_PREFIXES word-by-word prefixes are asked TYPING_GAP_MS apart, each request closed as the next is made,
 * then the whole query, whose answer is timed from its request. Its baseline is the query asked alone: the ratio is
 * what the superseded searches cost the one the person waits for.
 */
async function typing(bench: BenchService, queries: readonly string[], mode: Mode, scope?: Scope): Promise<Measured> {
  const samples: Sample[] = [];
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < queries.length; i++) {
    const words = queries[i]!.split(/\s+/);
    const directory = scope?.(i);
    const body = (query: string) => ({ query, mode, ...(directory ? { directory } : {}) });
    let previous: AbortController | null = null;
    for (let k = Math.max(1, words.length - TYPED_PREFIXES); k < words.length; k++) {
      previous?.abort();
      previous = new AbortController();
      void search(bench, body(words.slice(0, k).join(' ')), previous.signal).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, TYPING_GAP_MS));
    }
    previous?.abort();
    const started = performance.now();
    const answer = await search(bench, body(queries[i]!));
    samples.push({ ms: performance.now() - started, serverMs: answer.took_ms });
  }
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
async function singleClientRows(
  bench: BenchService,
  engine: Engine,
  files: number,
  queries: readonly string[],
  warmUp: readonly string[],
  modes: readonly Mode[],
  scope?: Scope,
): Promise<LatencyRow[]> {
  const rows: LatencyRow[] = [];
  for (const mode of modes) {
    await drive(bench, warmUp, mode, 1, (i) => i < warmUp.length, {}, scope);
    const r = row(engine, files, '1 client', mode, await drive(bench, queries, mode, 1, (i) => i < queries.length, {}, scope));
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
  /** Asked before each single-client pass, not counted (DEFAULT_WARM_UP). */
  warmUp: string[];
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
async function sciFactPart(engine: Engine, filesDir: string, options: Options, out: Results): Promise<void> {
  const bench = await start(engine, options);
  try {
    const quiet = await indexDirectory(bench, filesDir, true);
    console.log(`  indexed ${quiet.indexed} files (${quiet.failed} failed) in ${quiet.seconds.toFixed(1)} s`);
    const files = quiet.totalFiles;
    out.indexing.push({ engine, what: `SciFact, ${files} files, nothing else running`, run: quiet, bytes: await bench.databaseBytes() });

    const single = await singleClientRows(bench, engine, files, options.queries, options.warmUp, options.modes);
    out.latency.push(...single);
    const baseline = single.find((r) => r.mode === 'hybrid') ?? single[0];
    const mode: Mode = baseline?.mode ?? 'hybrid';

    // The web app asks for facets with the first page: their cost over the same queries, one client.
    await drive(bench, options.warmUp, mode, 1, (i) => i < options.warmUp.length, { facets: true });
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

/**
 * Part 2: the ladder on one engine. Each rung (built now or taken from the cache): one client then `clients`
 * clients in every mode. A 1-client row is compared with the smallest rung's, a many-client row with the 1-client
 * row of its rung.
 */
async function ladderPart(engine: Engine, tree: string, args: LadderArgs, options: Options, out: Results): Promise<void> {
  const ladderOptions: LadderOptions = { engine, rungs: args.rungs, tree, corpus: args.corpus, cacheDir: args.cacheDir, pgUrl: options.pgUrl, queries: options.queries, rebuild: args.rebuild, build: args.build };
  const rungs = ladder(
    ladderOptions,
    (line) => console.log(line),
  );
  for await (const rung of rungs) {
    const { bench, files } = rung;
    if (rung.stall) out.stalls.push({ engine, rung: files - rung.stall.files, stall: rung.stall });
    console.log(`[${engine}] ${files} files; embedder ${await embedderLabel(bench)}; database ${mb(await bench.databaseBytes())}`);
    // --form directory: query i searches folder i mod (the rung's folders) only, 1,000 of its files.
    const scope: Scope | undefined = args.directoryScope ? (i) => path.join(tree, 'files', String(i % Math.max(1, Math.floor(files / FOLDER_FILES)))) : undefined;
    const single = await singleClientRows(bench, engine, files, options.queries, options.warmUp, options.modes, scope);
    for (const r of single) {
      r.baseline = out.latency.find((s) => s.engine === engine && s.scenario === r.scenario && s.mode === r.mode && s.files < r.files && s.synthetic);
      r.synthetic = true;
      r.targeted = engine === 'pglite' && files === 100_000;
    }
    out.latency.push(...single);
    for (const one of single) {
      const n = options.clients;
      const many = row(engine, files, `${n} clients`, one.mode, await drive(bench, options.queries, one.mode, n, (i) => i < 2 * options.queries.length, {}, scope));
      many.baseline = one;
      many.synthetic = true;
      console.log(describeRow(many));
      out.latency.push(many);
    }
    if (args.typing) {
      for (const one of single) {
        const typed = row(engine, files, `typing (${TYPED_PREFIXES} superseded)`, one.mode, await typing(bench, options.queries, one.mode, scope));
        typed.baseline = one;
        typed.synthetic = true;
        console.log(describeRow(typed));
        out.latency.push(typed);
      }
    }
  }
  if (args.build === 'direct' && args.stallFolders > 0) {
    const { rung, stall } = await stallRun(ladderOptions, args.stallFolders, (line) => console.log(line));
    out.stalls.push({ engine, rung, stall });
  }
}

interface LadderArgs {
  rungs: number[];
  corpus: SyntheticKind;
  cacheDir: string;
  rebuild: boolean;
  build: 'direct' | 'api';
  /** Folders (1,000 files each) of the stall run on top of the largest rung (direct builds). */
  stallFolders: number;
  /** Each query scoped to one folder of the rung (--form directory). */
  directoryScope: boolean;
  /** The typing pass at each rung (--typing). */
  typing: boolean;
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

function targetCell(r: LatencyRow): string {
  const target = r.targeted ? TARGETS[r.mode] : undefined;
  if (!target) return '';
  return `${r.client.p50 <= target.p50 && r.client.p95 <= target.p95 ? 'met' : 'NOT met'} (≤ ${target.p50} / ≤ ${target.p95})`;
}

function latencyTable(rows: readonly LatencyRow[]): string {
  return markdownTable(
    ['engine', 'files', 'clients', 'mode', 'queries', 'p50 ms', 'p95 ms', 'p99 ms', 'server p50', 'queries/s', 'CPU ms/query', 'p50 vs baseline', 'target p50 / p95 at 100k, PGlite'],
    rows.map((r) => [
      r.engine,
      r.synthetic ? String(r.files) : `${r.files} (SciFact)`,
      r.scenario,
      r.mode,
      String(r.client.n),
      r.client.p50,
      r.client.p95,
      r.client.p99,
      r.server.p50,
      r.perSecond,
      r.cpuPerQuery ?? '–',
      r.baseline ? `${(r.client.p50 / r.baseline.client.p50).toFixed(1)}× (${r.baseline.files} files, ${r.baseline.scenario})` : 'baseline',
      targetCell(r),
    ]),
  );
}

/** Least-squares slope of log(p50) over log(files): cost ∝ files^slope. */
function slope(points: readonly { files: number; p50: number }[]): number {
  const xs = points.map((p) => Math.log(p.files));
  const ys = points.map((p) => Math.log(p.p50));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}

/** Per engine and mode, one client: p50 at each rung, largest ÷ smallest, the slope and the projection to 1M. */
function scalingTable(rows: readonly LatencyRow[], clients: number): string {
  const ladderRows = rows.filter((r) => r.synthetic && r.scenario === '1 client');
  const rungs = [...new Set(ladderRows.map((r) => r.files))].sort((a, b) => a - b);
  const keys = [...new Set(ladderRows.map((r) => `${r.engine}|${r.mode}`))];
  const many = (engine: string, mode: string, files: number): LatencyRow | undefined =>
    rows.find((r) => r.synthetic && r.engine === engine && r.mode === mode && r.files === files && r.scenario === `${clients} clients`);
  return markdownTable(
    ['engine', 'mode', ...rungs.map((n) => `p50 at ${n}`), 'largest ÷ smallest', 'slope (p50 ∝ files^s)', 'projected p50 at 1M', ...rungs.map((n) => `${clients} clients ÷ 1 at ${n}`)],
    keys.map((key) => {
      const [engine, mode] = key.split('|') as [string, string];
      const points = rungs.map((files) => ladderRows.find((r) => r.engine === engine && r.mode === mode && r.files === files)).filter((r) => r !== undefined);
      const first = points[0];
      const last = points[points.length - 1];
      const s = slope(points.map((p) => ({ files: p.files, p50: p.client.p50 })));
      return [
        engine,
        mode,
        ...rungs.map((n) => points.find((p) => p.files === n)?.client.p50 ?? '–'),
        first && last && last !== first ? `${(last.client.p50 / first.client.p50).toFixed(2)}×` : '–',
        Number.isFinite(s) ? s.toFixed(2) : '–',
        last && Number.isFinite(s) ? last.client.p50 * (1_000_000 / last.files) ** s : '–',
        ...rungs.map((n) => {
          const one = points.find((p) => p.files === n);
          const m = many(engine, mode, n);
          return one && m ? `${(m.client.p50 / one.client.p50).toFixed(1)}×` : '–';
        }),
      ];
    }),
  );
}

function stallTable(rows: readonly StallRow[]): string {
  return markdownTable(
    ['engine', 'files at start', 'files indexed', 'indexing s', 'upkeep after s', 'probe searches', 'p50 ms', 'p99 ms', 'slowest ms', 'longest upkeep slice ms', 'target slowest ≤ 1,000'],
    rows.map((r) => [
      r.engine,
      String(r.rung),
      String(r.stall.files),
      r.stall.indexSeconds,
      r.stall.upkeepSeconds,
      String(r.stall.searches),
      r.stall.summary.p50,
      r.stall.summary.p99,
      r.stall.slowestMs,
      r.stall.longestSliceMs,
      r.stall.slowestMs <= 1000 ? 'met' : 'NOT met',
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
  about: 'Search latency (POST /api/search/) on PGlite and PostgreSQL: SciFact, then the scale ladder of synthetic files.',
  options: {
    engine: { type: 'string', value: 'pglite|postgres|both', default: 'both', description: 'engines of both parts' },
    'skip-scifact': { type: 'boolean', description: 'only the ladder' },
    'skip-ladder': { type: 'boolean', description: 'only SciFact' },
    ladder: { type: 'string', value: 'N,N,…', default: DEFAULT_RUNGS.join(','), description: 'rung sizes (files, multiples of 1,000)' },
    cache: { type: 'string', value: 'DIR', description: `generated files and built indexes, reused by later runs (default ${path.join(tmpdir(), 'filesift-bench-ladder')})` },
    rebuild: { type: 'boolean', description: 'build every rung again even when cached' },
    typing: { type: 'boolean', description: `at each rung, a pass typing each query: its last ${TYPED_PREFIXES} word-by-word prefixes asked ${TYPING_GAP_MS} ms apart, each closed by the next, the whole query timed` },
    corpus: { type: 'string', value: 'topical|uniform', default: 'topical', description: 'synthetic text: each file about one SciFact document, or words drawn from the whole corpus (no pruning can help)' },
    build: { type: 'string', value: 'direct|api', default: 'direct', description: 'fill rungs in bulk (minutes), or every file through the API with the probe searching (hours at 100k)' },
    'stall-files': { type: 'string', value: 'N', default: '5000', description: 'files indexed through the API on top of the largest rung while the probe searches (direct builds; 0: none)' },
    modes: { type: 'string', value: 'hybrid,keyword,semantic', default: MODES.join(','), description: 'search modes to time' },
    queries: { type: 'string', value: 'N', description: 'SciFact test queries a pass (default all 300)' },
    'warm-up': { type: 'string', value: 'N', default: String(DEFAULT_WARM_UP), description: 'SciFact train queries asked, not counted, before each single-client pass (0: none)' },
    clients: { type: 'string', value: 'N', default: '8', description: 'concurrent clients of the concurrent passes' },
    form: {
      type: 'string',
      value: 'plain|phrase|exclusion|directory',
      default: 'plain',
      description: 'the queries as written, their first two words quoted as a phrase, with a common word excluded (-mice, -patients, ...), or each searched in one folder of 1,000 files (the ladder)',
    },
    pg: { type: 'string', value: 'URL', description: `PostgreSQL server (default TEST_DATABASE_URL, else ${DEFAULT_PG_URL})` },
  },
  notes: [
    'PostgreSQL: --pg, else TEST_DATABASE_URL, else the server `bash .ci/postgres.sh` starts; skipped when none answers.',
    'Ladder indexes on PostgreSQL are kept as databases filesift_ladder_<key>_<files> on that server.',
    'FILESIFT_MODEL_DIR set: the service embeds with that model (and the ladder builds indexes for it).',
  ],
} satisfies BenchCommand<BenchOptions>;

function rungList(value: string): number[] {
  const rungs = value.split(',').map((v) => nonNegativeInt('ladder', v.trim()));
  if (rungs.some((n) => n === 0 || n % 1000 !== 0)) throw new Error(`--ladder: every rung must be a positive multiple of 1000 (got ${value})`);
  return [...new Set(rungs)].sort((a, b) => a - b);
}

const QUERY_FORMS = ['plain', 'phrase', 'exclusion', 'directory'] as const;
/** Words common in SciFact's abstracts (and so in the ladder's synthetic files), excluded in turn by --form exclusion. */
const EXCLUDED_WORDS = ['mice', 'patients', 'cells', 'expression', 'protein'];

/**
 * A query in the form asked for: its first two words quoted (a phrase the answers must hold; the rest stays as it
 * was), or the query with one common word excluded. Phrases and exclusions are checked on each candidate file's
 * segments, on both sides of a hybrid search: this is how their cost at scale is measured.
 */
function inForm(text: string, form: (typeof QUERY_FORMS)[number], i: number): string {
  if (form === 'exclusion') return `${text} -${EXCLUDED_WORDS[i % EXCLUDED_WORDS.length]}`;
  if (form === 'phrase') {
    const words = text.replace(/["-]/g, ' ').split(/\s+/).filter((w) => w !== '');
    return words.length < 2 ? text : `"${words[0]} ${words[1]}" ${words.slice(2).join(' ')}`.trim();
  }
  return text;
}

async function main(): Promise<void> {
  const args = readBenchArgs(CLI, ({ values }) => ({
    engines: engines('engine', values.engine),
    /** PostgreSQL asked for by name must answer; with 'both' it is skipped when it does not. */
    pgRequired: values.engine === 'postgres',
    rungs: values['skip-ladder'] ? [] : rungList(values.ladder),
    cacheDir: path.resolve(values.cache ?? path.join(tmpdir(), 'filesift-bench-ladder')),
    rebuild: values.rebuild,
    corpus: choiceOption('corpus', values.corpus, SYNTHETIC_KINDS),
    build: choiceOption('build', values.build, ['direct', 'api']),
    stallFolders: Math.ceil(nonNegativeInt('stall-files', values['stall-files']) / 1000),
    directoryScope: values.form === 'directory',
    typing: values.typing,
    skipSciFact: values['skip-scifact'],
    modes: listOption('modes', values.modes, MODES),
    queries: positiveInt('queries', values.queries, undefined),
    warmUp: nonNegativeInt('warm-up', values['warm-up']),
    clients: positiveInt('clients', values.clients),
    form: choiceOption('form', values.form, QUERY_FORMS),
    pgUrl: values.pg ?? process.env.TEST_DATABASE_URL ?? DEFAULT_PG_URL,
  }));
  const data = checkSciFact();
  if (!data.ok) {
    console.error(`bench:search cannot run: ${data.reason}`);
    process.exitCode = 2;
    return;
  }
  let chosen = args.engines;
  const { rungs, skipSciFact, modes } = args;
  const all = loadQueries('test').queries.map((q, i) => inForm(q.text, args.form, i));
  const train = loadQueries('train').queries.map((q, i) => inForm(q.text, args.form, i));
  const options: Options = { queries: all.slice(0, args.queries ?? all.length), warmUp: train.slice(0, args.warmUp), modes, clients: args.clients, pgUrl: args.pgUrl };

  if (chosen.includes('postgres')) {
    const problem = await pgProblem(options.pgUrl);
    if (problem !== null) {
      const why = `PostgreSQL at ${options.pgUrl} does not answer (${problem}). Start one with \`bash .ci/postgres.sh\` (it prints its URL) and pass --pg <url> or set TEST_DATABASE_URL.`;
      if (args.pgRequired) throw new Error(why);
      console.log(`Skipping PostgreSQL: ${why}`);
      chosen = chosen.filter((e) => e !== 'postgres');
    }
  }

  console.log(`Search latency: ${options.queries.length} SciFact test queries a pass${args.form === 'plain' ? '' : ` (${args.form} form)`} after ${options.warmUp.length} train queries, modes ${modes.join(', ')}, ${options.clients} concurrent clients; ` +
    `engines ${chosen.join(', ')}${skipSciFact ? ' (no SciFact part)' : ''}${rungs.length > 0 ? `; ladder ${rungs.join(', ')} files, cache ${args.cacheDir}` : ''}; ` +
    `load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'})`);
  const out: Results = { latency: [], indexing: [], stalls: [] };
  const t0 = performance.now();
  if (!skipSciFact) for (const engine of chosen) await sciFactPart(engine, data.files, options, out);
  if (rungs.length > 0) {
    const t1 = performance.now();
    const tree = await writeSyntheticTree(path.join(args.cacheDir, `tree-${args.corpus}`), loadDocs().map((d) => d.text), rungs[rungs.length - 1]! + args.stallFolders * 1000, 42, args.corpus);
    console.log(`\n${tree.written ? 'wrote' : 'reusing'} ${tree.count} ${args.corpus} synthetic files under ${tree.files} (${((performance.now() - t1) / 1000).toFixed(0)} s)`);
    for (const engine of chosen) await ladderPart(engine, path.dirname(tree.files), args, options, out);
  }

  console.log(`\nSearch latency, POST /api/search/ over loopback HTTP (default limit 50), milliseconds; load average at the end ` +
    `${loadavg().map((x) => x.toFixed(1)).join(' ')}; ${((performance.now() - t0) / 60_000).toFixed(1)} min in all:\n`);
  console.log(latencyTable(out.latency));
  if (rungs.length > 1) {
    console.log(`\nThe ladder, one client: p50 by collection size, the ratio, the slope and the projection to 1,000,000 files; ${options.clients} clients against one:\n`);
    console.log(scalingTable(out.latency, options.clients));
  }
  if (out.stalls.length > 0) {
    console.log(`\nSearches during a bulk run through the API (on top of the rung named; then its upkeep until idle) from a probe client searching hybrid one query after another:\n`);
    console.log(stallTable(out.stalls));
  } else if (rungs.length > 0) {
    console.log('\nNo stall figure: --stall-files 0, or an API build taken from the cache (--rebuild measures it).');
  }
  if (out.indexing.length > 0) {
    console.log(`\nIndexing runs of the SciFact part (POST /api/index/directory until index_run_completed; database size = tables and indexes, PGlite WAL not counted):\n`);
    console.log(indexingTable(out.indexing));
  }
  console.log(`\nCommand: npm run bench:search${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
