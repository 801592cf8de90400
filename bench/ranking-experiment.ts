/**
 * Ranking experiment on SciFact (BEIR): keyword BM25F inside the database, latency, scale. (Hybrid fusion is
 * chosen per embedding model by bench/fusion-experiment.ts, `npm run bench:fusion`.)
 *
 *   npm run bench:ranking -- [--variants english-split,english,simple] [--scale N]
 *                            [--pg postgres://...] [--quick]
 *   npm run bench:ranking -- --scale-only N      (only the synthetic scale test, N files)
 *
 * Loads the 5,183 SciFact files into PGlite with the service's schema and sql/0006 and 0007 (the
 * triggers build the index), with title, summary and keywords from the real local analyzer, as the service
 * stores them. For each text search variant, sweeps k1/b/query-tf/field weights on the *train* split only
 * (809 queries) and reports the chosen point on *test* (300 queries); the chosen points are re-run through
 * the real keyword search (src/store/keyword/) to confirm it and the reference agree. Then keyword latency (p50/p95 over the
 * test queries, one client), optionally a synthetic scale test and the same SQL on native PostgreSQL.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { searchKeyword } from '../src/store/keyword/search.js';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { analyzeLocally } from '../src/pipeline/analyze/local/index.js';
import type { FieldWeights } from '../src/store/keyword/bm25.js';
import type { CandidateFilters } from '../src/store/queries/filters.js';
import {
  DEFAULT_KEYWORD_RANKING,
  type KeywordHitRow,
  type KeywordRankingSettings,
} from '../src/store/keyword/query.js';
import { parseSearchQuery } from '../src/search/query-parser.js';
import { openPglite } from '../src/store/engines/pglite.js';
import { openPostgres } from '../src/store/engines/postgres.js';
import type { SqlDatabase } from '../src/store/sql.js';
import { listOption, positiveInt, readBenchArgs } from './lib/cli.js';
import { loadGridData, rankGrid, type GridData, type GridPoint } from './lib/bm25-grid.js';
import { applyKeywordSchema, insertFiles, type FileRowInput } from './lib/keyword-db.js';
import { evaluateRuns, percentile, type RunScores } from './lib/metrics.js';
import { loadDocs, loadQueries, type SciFactQueries } from './lib/scifact.js';
import { syntheticDocs } from './lib/synthetic.js';

const VARIANTS: Record<string, { sql: string; about: string }> = {
  'english-split': {
    sql: '',
    about: 'the draft: english (Snowball English stemmer + stop words), hyphenated words indexed by their parts only',
  },
  english: {
    sql: 'DROP TEXT SEARCH CONFIGURATION filesift_english; CREATE TEXT SEARCH CONFIGURATION filesift_english (COPY = pg_catalog.english)',
    about: "pg_catalog.english as is (a hyphenated word indexed whole and by its parts)",
  },
  simple: {
    sql: 'DROP TEXT SEARCH CONFIGURATION filesift_english; CREATE TEXT SEARCH CONFIGURATION filesift_english (COPY = pg_catalog.simple)',
    about: 'simple: no stemming, no stop words',
  },
};

const args = readBenchArgs(
  {
    command: 'npm run bench:ranking --',
    about: 'Ranking experiment on SciFact: keyword BM25F in the database tuned on train, hybrid fusion, latency, scale.',
    options: {
      variants: { type: 'string', value: Object.keys(VARIANTS).join(','), default: Object.keys(VARIANTS).join(','), description: 'text search configurations to compare' },
      scale: { type: 'string', value: 'N', description: 'also the synthetic scale test with N files' },
      pg: { type: 'string', value: 'URL', description: 'also the chosen setting on native PostgreSQL at URL' },
      quick: { type: 'boolean', description: 'a coarse grid (a quick check, not a result)' },
      'scale-only': { type: 'string', value: 'N', description: 'only the synthetic scale test, N files (default settings)' },
    },
  },
  // Checked here, before the experiment's hour of work, not when it gets to them.
  ({ values }) => ({
    variants: listOption('variants', values.variants, Object.keys(VARIANTS)),
    scale: positiveInt('scale', values.scale, undefined),
    pg: values.pg,
    quick: values.quick,
    scaleOnly: positiveInt('scale-only', values['scale-only'], undefined),
  }),
);
const quick = args.quick;
const FLAT: FieldWeights = { name: 0, keywords: 0, summary: 0, content: 1 };
const K1S = quick ? [0.9, 1.2] : [0.6, 0.9, 1.2, 1.5];
const BS = quick ? [0.4, 0.75] : [0.3, 0.4, 0.5, 0.6, 0.75];
const LIMIT = 100;

type Runs = Map<string, string[]>;
const fmt = (x: number): string => x.toFixed(4);
const ms = (x: number): string => x.toFixed(1);

function toRuns(ranked: Map<string, number[]>, corpusIdOf: Map<number, string>): Runs {
  return new Map([...ranked].map(([q, ids]) => [q, ids.map((id) => corpusIdOf.get(id) ?? `?${id}`)]));
}

function label(p: GridPoint): string {
  const w = p.weights;
  return `k1=${p.k1} b=${p.b} qtf=${p.queryTermFrequency ? 'on' : 'off'} w=${w.name}/${w.keywords}/${w.summary}/${w.content}`;
}

function toSettings(p: GridPoint): KeywordRankingSettings {
  return { k1: p.k1, b: p.b, queryTermFrequency: p.queryTermFrequency, fieldWeights: p.weights };
}

/** Best grid point on train among `points`. */
function bestOnTrain(data: GridData, points: GridPoint[], train: SciFactQueries, corpusIdOf: Map<number, string>): GridPoint {
  let best = points[0]!;
  let bestScore = -1;
  for (const p of points) {
    const s = evaluateRuns(toRuns(rankGrid(data, p, LIMIT), corpusIdOf), train.qrels).ndcgAt10;
    if (s > bestScore + 1e-12) {
      bestScore = s;
      best = p;
    }
  }
  return best;
}

function paramGrid(weights: FieldWeights): GridPoint[] {
  return K1S.flatMap((k1) => BS.flatMap((b) => [false, true].map((q) => ({ k1, b, queryTermFrequency: q, weights }))));
}

/**
 * Field weights with content at 1. `ordered`: the order, name+title ≥ keywords ≥ summary ≥ content
 * (SciFact cannot tell what a file name is worth: its names are ids, its titles repeat in the text); otherwise
 * anything below, zeros included, to see what the data alone prefers.
 */
function weightGrid(base: GridPoint, ordered: boolean): GridPoint[] {
  const names = ordered ? [1, 1.5, 2, 3, 4] : [0, 0.5, 1, 1.5, 2, 3];
  const others = ordered ? [1, 1.25, 1.5, 2, 3] : [0, 0.1, 0.25, 0.5, 1];
  const points: GridPoint[] = [];
  for (const name of quick ? names.slice(0, 2) : names)
    for (const keywords of quick ? others.slice(0, 2) : others)
      for (const summary of quick ? others.slice(0, 2) : others) {
        if (ordered && !(name >= keywords && keywords >= summary)) continue;
        points.push({ ...base, weights: { name, keywords, summary, content: 1 } });
      }
  return points;
}

/** The SciFact files as the service would store them: local analyzer's title/summary/keywords, whole text. */
function sciFactRows(): { rows: FileRowInput[]; corpusIds: string[]; texts: { text: string; title: string }[] } {
  const docs = loadDocs();
  const rows: FileRowInput[] = [];
  for (const d of docs) {
    const filename = `${d.id}.txt`;
    const facts = {
      path: `/data/scifact/${filename}`,
      filename,
      extension: 'txt',
      size: Buffer.byteLength(d.text),
      created: '2024-01-01T00:00:00.000Z',
      modified: '2024-06-01T00:00:00.000Z',
      accessed: '2024-06-01T00:00:00.000Z',
    };
    const a = analyzeLocally(
      { ...facts, format: 'text', mime: 'text/plain', text: d.text, metadata: {}, contentHash: '', textTruncated: false },
      { maxInputChars: 100_000 },
    );
    rows.push({ ...facts, title: a.title, summary: a.summary, keywords: a.keywords, content: d.text });
  }
  return { rows, corpusIds: docs.map((d) => d.id), texts: docs.map((d) => ({ text: d.text, title: d.title })) };
}

async function loadInto(db: SqlDatabase, variantSql: string, rows: FileRowInput[]): Promise<{ ids: number[]; loadMs: number }> {
  await applyKeywordSchema(db, variantSql);
  const t0 = performance.now();
  const ids = await insertFiles(db, rows);
  return { ids, loadMs: performance.now() - t0 };
}

async function sizes(db: SqlDatabase): Promise<string> {
  const { rows } = await db.query<{ t: string; b: string; s: string; n: number }>(
    `SELECT pg_size_pretty(pg_total_relation_size('keyword_tail')) AS t, pg_size_pretty(pg_total_relation_size('keyword_blocks')) AS b,
            pg_size_pretty(pg_total_relation_size('file_segments')) AS s,
            (SELECT count(*) FROM keyword_tail)::int + (SELECT coalesce(sum(n), 0) FROM keyword_blocks)::int AS n`,
  );
  const r = rows[0]!;
  return `${r.n} postings; keyword_tail ${r.t}, keyword_blocks ${r.b}, file_segments ${r.s}`;
}

async function sqlRuns(db: SqlDatabase, split: SciFactQueries, settings: KeywordRankingSettings, corpusIdOf: Map<number, string>, filters?: CandidateFilters): Promise<{ runs: Runs; rows: Map<string, KeywordHitRow[]> }> {
  const runs: Runs = new Map();
  const rowsOf = new Map<string, KeywordHitRow[]>();
  for (const q of split.queries) {
    const rows = (await searchKeyword(db, parseSearchQuery(q.text), { limit: LIMIT, settings, ...(filters ? { filters } : {}) })).hits;
    rowsOf.set(q.id, rows);
    runs.set(q.id, rows.map((r) => corpusIdOf.get(r.id) ?? `?${r.id}`));
  }
  return { runs, rows: rowsOf };
}

interface Latency {
  p50: number;
  p95: number;
  /** This process's CPU time per query (PGlite runs in-process): steadier than wall time on a shared machine. */
  cpuP50: number;
  cpuP95: number;
}

/** Wall (and CPU) time of each keyword query (text → statement → rows, in its transaction), after a warm-up. */
async function latency(db: SqlDatabase, texts: string[], settings: KeywordRankingSettings, limit: number, filters?: CandidateFilters): Promise<Latency> {
  const wall: number[] = [];
  const cpu: number[] = [];
  const run = async (text: string): Promise<void> => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await searchKeyword(db, parseSearchQuery(text), { limit, settings, ...(filters ? { filters } : {}) });
    wall.push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
  };
  for (const t of texts.slice(0, 30)) await run(t);
  wall.length = 0;
  cpu.length = 0;
  for (const t of texts) await run(t);
  return { p50: percentile(wall, 0.5), p95: percentile(wall, 0.95), cpuP50: percentile(cpu, 0.5), cpuP95: percentile(cpu, 0.95) };
}

function scoresLine(name: string, train: RunScores, test: RunScores): string {
  return `| ${name} | ${fmt(train.ndcgAt10)} | ${fmt(train.recallAt100)} | ${fmt(test.ndcgAt10)} | ${fmt(test.recallAt100)} |`;
}

async function keywordExperiment(): Promise<void> {
  const train = loadQueries('train');
  const test = loadQueries('test');
  // Query ids of the two splits overlap as strings: keep them apart in the grid data.
  const gridQueries = new Map<string, string>();
  train.queries.forEach((q) => gridQueries.set(`train:${q.id}`, q.text));
  test.queries.forEach((q) => gridQueries.set(`test:${q.id}`, q.text));
  const splitRuns = (runs: Runs, split: 'train' | 'test'): Runs =>
    new Map([...runs].filter(([k]) => k.startsWith(`${split}:`)).map(([k, v]) => [k.slice(split.length + 1), v]));

  let t0 = performance.now();
  const { rows, corpusIds, texts } = sciFactRows();
  console.log(`SciFact: ${rows.length} files analysed by the local analyzer in ${(performance.now() - t0) / 1000 | 0} s; ` +
    `train ${train.queries.length} queries, test ${test.queries.length}\n`);

  const table: string[] = ['| variant / setting (chosen on train) | train nDCG@10 | train R@100 | test nDCG@10 | test R@100 |', '|---|---|---|---|---|'];
  const finals: { variant: string; point: GridPoint; trainNdcg: number }[] = [];
  const agreement: string[] = [];
  for (const name of args.variants) {
    const variant = VARIANTS[name]!;
    const db = await openPglite(null);
    const { ids, loadMs } = await loadInto(db, variant.sql, rows);
    await db.exec('VACUUM ANALYZE');
    const corpusIdOf = new Map(ids.map((id, i) => [id, corpusIds[i]!]));
    console.log(`[${name}] ${variant.about}\n  load ${(loadMs / 1000).toFixed(1)} s (${ms(loadMs / rows.length)} ms/file); ${await sizes(db)}`);

    t0 = performance.now();
    const data = await loadGridData(db, gridQueries);
    const evalPoint = (p: GridPoint): { train: RunScores; test: RunScores } => {
      const runs = toRuns(rankGrid(data, p, LIMIT), corpusIdOf);
      return { train: evaluateRuns(splitRuns(runs, 'train'), train.qrels), test: evaluateRuns(splitRuns(runs, 'test'), test.qrels) };
    };
    const trainOnly = { queries: train.queries, qrels: new Map([...train.qrels].map(([k, v]) => [`train:${k}`, v])) };
    const anserini: GridPoint = { k1: 0.9, b: 0.4, queryTermFrequency: true, weights: FLAT };
    const flatBest = bestOnTrain(data, paramGrid(FLAT), trainOnly, corpusIdOf);
    const anyWeights = bestOnTrain(data, weightGrid(flatBest, false), trainOnly, corpusIdOf);
    const fieldBest = bestOnTrain(data, weightGrid(flatBest, true), trainOnly, corpusIdOf);
    const final = bestOnTrain(data, paramGrid(fieldBest.weights), trainOnly, corpusIdOf);
    for (const [what, p] of [
      ['flat, Anserini k1=0.9 b=0.4 qtf', anserini],
      ['flat, best k1/b/qtf', flatBest],
      ['fields, best weights, zeros allowed', anyWeights],
      ['fields, best weights in the issue order (name ≥ keywords ≥ summary ≥ content)', fieldBest],
      ['fields in order, then k1/b/qtf re-tuned', final],
    ] as const) {
      const s = evalPoint(p);
      table.push(scoresLine(`${name}: ${what} (${label(p)})`, s.train, s.test));
    }
    console.log(`  sweep ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const finalScores = evalPoint(final);
    finals.push({ variant: name, point: final, trainNdcg: finalScores.train.ndcgAt10 });

    // The chosen point through the real SQL: must agree with the reference.
    for (const [splitName, split] of [['train', train], ['test', test]] as const) {
      const { runs } = await sqlRuns(db, split, toSettings(final), corpusIdOf);
      const sql = evaluateRuns(runs, split.qrels);
      const js = finalScores[splitName];
      agreement.push(`${name} ${splitName}: SQL nDCG@10 ${fmt(sql.ndcgAt10)} R@100 ${fmt(sql.recallAt100)} | reference ${fmt(js.ndcgAt10)} ${fmt(js.recallAt100)}`);
    }
    await db.close();
  }
  console.log('\nKeyword quality (BM25F in SQL; weights = name+title / keywords / summary / content):\n');
  console.log(table.join('\n'));
  console.log('\nSQL vs reference (chosen points):\n  ' + agreement.join('\n  '));

  const chosen = finals.reduce((a, b) => (b.trainNdcg > a.trainNdcg ? b : a));
  const d = DEFAULT_KEYWORD_RANKING;
  const isDefault = chosen.variant === 'english-split' && label(chosen.point) === label({ k1: d.k1, b: d.b, queryTermFrequency: d.queryTermFrequency, weights: d.fieldWeights });
  console.log(`\nChosen on train: ${chosen.variant}, ${label(chosen.point)} (${isDefault ? 'equals' : 'DIFFERS FROM'} the draft + DEFAULT_KEYWORD_RANKING)\n`);
  await latencyAndFusion(chosen.variant, toSettings(chosen.point), rows, corpusIds, texts, train, test);
}

async function latencyAndFusion(
  variantName: string,
  settings: KeywordRankingSettings,
  rows: FileRowInput[],
  corpusIds: string[],
  texts: { text: string; title: string }[],
  train: SciFactQueries,
  test: SciFactQueries,
): Promise<void> {
  const db = await openPglite(null);
  const { ids } = await loadInto(db, VARIANTS[variantName]!.sql, rows);
  const corpusIdOf = new Map(ids.map((id, i) => [id, corpusIds[i]!]));
  const testTexts = test.queries.map((q) => q.text);
  const lines: string[] = [
    '| query kind (300 test queries, 5,183 files, PGlite, one client) | p50 ms | p95 ms | CPU p50 ms | CPU p95 ms |',
    '|---|---|---|---|---|',
  ];
  const add = async (what: string, qs: string[], limit: number, filters?: CandidateFilters): Promise<void> => {
    const l = await latency(db, qs, settings, limit, filters);
    lines.push(`| ${what} | ${ms(l.p50)} | ${ms(l.p95)} | ${ms(l.cpuP50)} | ${ms(l.cpuP95)} |`);
  };
  console.log(`load average at start: ${loadavg().map((x) => x.toFixed(1)).join(' ')} (${cpus().length} cores)`);
  await add('plain, limit 50, before VACUUM (fresh load)', testTexts, 50);
  await db.exec('VACUUM ANALYZE');
  await add('plain, limit 50', testTexts, 50);
  await add('plain, limit 100', testTexts, 100);
  const words = (t: string): string[] => t.split(/\s+/).filter((w) => /^[A-Za-z]{4,}$/.test(w));
  await add('with a "two-word phrase"', testTexts.map((t) => { const w = words(t); return w.length >= 2 ? `"${w[0]} ${w[1]}" ${t}` : t; }), 50);
  await add('with -patients (excludes ~20% of files)', testTexts.map((t) => `${t} -patients`), 50);
  await add('filters matching all (ext, dir, glob, size, dates)', testTexts, 50, {
    extensions: ['txt'], directory: '/data/scifact', pathGlob: '*.txt', sizeMin: 1, modifiedAfter: '2020-01-01T00:00:00Z',
  });
  await add('filter glob 1*.txt (narrows to ~1/4)', testTexts, 50, { pathGlob: '1*.txt' });
  console.log(lines.join('\n'));

  // A filter must narrow inside the query: all 50 rows satisfy it, as many as exist.
  const narrowed = await sqlRuns(db, { queries: test.queries.slice(0, 20), qrels: test.qrels }, settings, corpusIdOf, { pathGlob: '1*.txt' });
  const allMatch = [...narrowed.runs.values()].every((ids2) => ids2.every((id) => id.startsWith('1')));
  console.log(`\nglob filter check: every returned file matches 1*.txt: ${allMatch}`);

  await db.close();
  if (args.pg !== undefined) await nativePostgres(args.pg, variantName, settings, rows, corpusIds, test);
  if (args.scale !== undefined) await scaleTest(args.scale, variantName, settings, texts.map((t) => t.text), testTexts);
}

async function nativePostgres(url: string, variantName: string, settings: KeywordRankingSettings, rows: FileRowInput[], corpusIds: string[], test: SciFactQueries): Promise<void> {
  const db = await openPostgres(url, { max: 1 });
  try {
    const { ids, loadMs } = await loadInto(db, VARIANTS[variantName]!.sql, rows);
    await db.exec('VACUUM ANALYZE');
    const corpusIdOf = new Map(ids.map((id, i) => [id, corpusIds[i]!]));
    const s = evaluateRuns((await sqlRuns(db, test, settings, corpusIdOf)).runs, test.qrels);
    const l = await latency(db, test.queries.map((q) => q.text), settings, 50);
    console.log(`\nNative PostgreSQL (${(await db.query<{ v: string }>(`SELECT current_setting('server_version') AS v`)).rows[0]?.v ?? '?'}): load ${(loadMs / 1000).toFixed(1)} s; ` +
      `test nDCG@10 ${fmt(s.ndcgAt10)} R@100 ${fmt(s.recallAt100)}; keyword limit 50 p50 ${ms(l.p50)} ms p95 ${ms(l.p95)} ms`);
  } finally {
    await db.close();
  }
}

async function scaleTest(count: number, variantName: string, settings: KeywordRankingSettings, sources: string[], queries: string[]): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'filesift-scale-'));
  const db = await openPglite(dir);
  try {
    await applyKeywordSchema(db, VARIANTS[variantName]!.sql);
    const t0 = performance.now();
    let batch: FileRowInput[] = [];
    let n = 0;
    for (const d of syntheticDocs(sources, count, 42, 'uniform')) {
      n++;
      batch.push({ path: `/data/synthetic/${Math.floor(n / 1000)}/${n}.txt`, filename: `${n}.txt`, extension: 'txt', size: d.text.length, title: d.title, content: d.text });
      if (batch.length === 500) {
        await insertFiles(db, batch);
        batch = [];
        if (n % 10_000 === 0) console.log(`  scale: ${n} files, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      }
    }
    if (batch.length > 0) await insertFiles(db, batch);
    const loadS = (performance.now() - t0) / 1000;
    await db.exec('VACUUM ANALYZE');
    const l50 = await latency(db, queries, settings, 50);
    const dirSize = (await db.query<{ s: string }>(`SELECT pg_size_pretty(pg_database_size(current_database())) AS s`)).rows[0]?.s;
    console.log(`\nScale: ${count} synthetic files (SciFact words and lengths): load ${loadS.toFixed(0)} s, database ${dirSize}, ${await sizes(db)}; ` +
      `keyword limit 50 over the 300 test queries: p50 ${ms(l50.p50)} ms, p95 ${ms(l50.p95)} ms (CPU p50 ${ms(l50.cpuP50)}, p95 ${ms(l50.cpuP95)})`);
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const { scaleOnly } = args;
  if (scaleOnly === undefined) return keywordExperiment();
  // Only the scale test, with the draft's configuration and the default settings.
  const texts = loadDocs().map((d) => d.text);
  const queries = loadQueries('test').queries.map((q) => q.text);
  await scaleTest(scaleOnly, 'english-split', { ...DEFAULT_KEYWORD_RANKING }, texts, queries);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
