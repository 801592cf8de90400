/**
 * Where a search's CPU goes, part by part (issue 13): on a built index (e.g. a ladder rung), the SciFact test
 * queries are answered three ways, one pass each, CPU per query measured around each part:
 *   inprocess the parts again with the store opened in this thread (a second copy of the index): the store
 *             parts without the store's thread, its messages and its call gate;
 *   parts     the search service's steps one after another with the service's own components (query parsing,
 *             typo lexicon, keyword statement and evaluator, query embedding, vector search, fusion, the result
 *             rows, snippets, the answer's JSON): each part's CPU, its thread's work and the messages to it;
 *   service   SearchService.search as the HTTP route calls it (the parts plus their glue);
 *   http      POST /api/search/ over loopback from a client in this process (the bench:search figure);
 *   client    the same answers' bodies served by a bare node:http server and fetched and parsed: the client's
 *             and loopback's share of `http`, which a real client pays in its own process;
 *   latency   (only when asked) wall ms of each POST /api/search/, one client, then CLIENTS clients at once (each
 *             asking again on its answer): p50 / p95 / p99 on this index, as bench:search gives them on its ladder.
 * CPU is the whole process's (every thread), and per thread from /proc (the store's thread found by a burst
 * of store calls, the snippet and query-embedding threads likewise).
 *   npm run bench:search-profile -- DATA_DIR [--queries N] [--query-file FILE] [--modes keyword,hybrid] [--rounds N] [--passes LIST]
 * With `node --cpu-prof` (one profile a thread) and `--passes http`, the profiles show the functions behind the figures.
 * DATA_DIR: a service data directory holding `pglite/` (a ladder rung: `<cache>/pglite-<key>-<files>`). It is
 * copied first (PGlite writes to what it opens).
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { activeFusion } from '../src/models/fusion-profiles.js';
import { fuseHybrid, rankKeyword, type FusedHit } from '../src/search/fuse.js';
import { parseSearchQuery } from '../src/search/query-parser.js';
import { SearchService } from '../src/search/search.service.js';
import { applyCorrections, searchesCorrections } from '../src/search/typo.js';
import type { KeywordRankingSettings } from '../src/store/keyword/query.js';
import { openPglite } from '../src/store/engines/pglite.js';
import { pgliteDir } from '../src/store/spawn.js';
import { openStore, type StoreApi } from '../src/store/store.js';
import { drive, search, startBenchService } from './lib/bench-service.js';
import { listOption, positiveInt, readBenchArgs } from './lib/cli.js';
import { checkSciFact, loadQueries } from './lib/scifact.js';
import { markdownTable, readQueryFile, summarize, type LatencySummary } from './lib/search-bench.js';

const MODES = ['keyword', 'hybrid'] as const;
const PASSES = ['parts', 'inprocess', 'service', 'http', 'client', 'latency'] as const;
type Mode = (typeof MODES)[number];

const options = readBenchArgs(
  {
    command: 'npm run bench:search-profile --',
    about: "Splits a search's CPU per part (store statements, threads, fusion, snippets, HTTP and JSON) on a built index.",
    positional: { name: 'DATA_DIR', description: 'a service data directory holding pglite/ (a ladder rung); copied first' },
    options: {
      queries: { type: 'string', value: 'N', default: '300', description: 'SciFact test queries a pass (or the first N of --query-file)' },
      'query-file': { type: 'string', value: 'FILE', description: "the queries from FILE instead, one a line ('#' starts a comment), e.g. bench/home-queries.txt for a home directory" },
      modes: { type: 'string', value: 'LIST', default: 'keyword,hybrid', description: 'keyword, hybrid' },
      rounds: { type: 'string', value: 'N', default: '1', description: 'passes of each kind, alternated' },
      answers: { type: 'string', value: 'FILE', description: "write the http pass's answers (paths and scores, a line a query) to FILE, to compare two builds" },
      passes: { type: 'string', value: 'LIST', default: 'parts,inprocess,service,http,client', description: 'which passes (client needs http; latency: wall ms at 1 and 8 clients)' },
    },
  },
  ({ values, positional }) => {
    if (!positional || !existsSync(join(positional, 'pglite'))) throw new Error(`DATA_DIR: no pglite/ under ${positional ?? '(none given)'}`);
    return {
      dir: positional,
      queries: positiveInt('queries', values.queries),
      queryFile: values['query-file'],
      modes: listOption('modes', values.modes, MODES),
      rounds: positiveInt('rounds', values.rounds),
      passes: listOption('passes', values.passes, PASSES),
      answers: values.answers,
    };
  },
);

const scifact = checkSciFact();
if (!options.queryFile && !scifact.ok) {
  console.error(`bench:search-profile needs the SciFact queries: ${scifact.reason}`);
  process.exit(1);
}

const TICK_MS = 10; // USER_HZ 100 on Linux

/** CPU ms of each thread of this process so far, by thread id. */
function threadCpu(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), (Number(fields[11]) + Number(fields[12])) * TICK_MS);
    } catch {
      // the thread ended
    }
  }
  return out;
}

const diff = (after: Map<number, number>, before: Map<number, number>): Map<number, number> =>
  new Map([...after].map(([tid, ms]) => [tid, ms - (before.get(tid) ?? 0)]));

const cpuNow = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The thread that did most of the work of `burst`. */
async function busiest(burst: () => Promise<void>): Promise<number> {
  const before = threadCpu();
  await burst();
  const d = diff(threadCpu(), before);
  d.delete(process.pid);
  return [...d].sort((a, b) => b[1] - a[1])[0]![0];
}

const scratch = mkdtempSync(join(tmpdir(), 'filesift-search-profile-'));
cpSync(options.dir, scratch, { recursive: true });
const bench = await startBenchService({ dataDir: scratch });
// The in-process pass opens a second copy in this thread, with the shared_buffers the service's store chose.
let inProcess: { store: StoreApi; close(): Promise<void> } | null = null;
if (options.passes.includes('inprocess')) {
  const copy = mkdtempSync(join(tmpdir(), 'filesift-search-profile-'));
  cpSync(pgliteDir(options.dir), copy, { recursive: true });
  const db = await openPglite(copy);
  inProcess = { store: await openStore(db), close: async () => (await db.close(), rmSync(copy, { recursive: true, force: true })) };
}
const { service } = bench;
const store = service.store.api;
const queries = (options.queryFile ? readQueryFile(readFileSync(options.queryFile, 'utf8'), options.queryFile) : loadQueries('test').queries.map((q) => q.text)).slice(0, options.queries);
const settings = service.settings.get().search;
const keywordSettings: KeywordRankingSettings = {
  k1: settings.bm25_k1,
  b: settings.bm25_b,
  fieldWeights: { name: settings.weight_name, keywords: settings.weight_keywords, summary: settings.weight_summary, content: settings.weight_content },
  queryTermFrequency: false,
};
const searchService = new SearchService({ store, settings: service.settings, logger: service.logger, embedder: () => service.models.queryLane(), snippets: service.snippets });
const lane = await service.models.queryLane();
if (!lane.embedder) throw new Error(`no query embedder: ${lane.reason}`);
const embedder = lane.embedder;
const LIMIT = 50;
const CANDIDATES = 100;

// Warm every path, and find the threads.
for (const q of queries.slice(0, 20)) for (const mode of options.modes) await search(bench, { query: q, mode });
const storeThread = await busiest(async () => {
  for (const q of queries) await store.search.lexemes(q);
});
const snippetThread = await busiest(async () => {
  for (let i = 0; i < 200; i++) await service.snippets.snippets([{ text: queries.join(' '), summary: '' }], ['cell']);
});
const embedThread = await busiest(async () => {
  for (let i = 0; i < 3; i++) for (const q of queries) await embedder.embed(`${q} ${i}`);
});
const threadName = (tid: number): string =>
  tid === process.pid ? 'main' : tid === storeThread ? 'store' : tid === snippetThread ? 'snippets' : tid === embedThread ? 'query embedder' : 'other';

type Part = string;
interface Pass {
  kind: string;
  mode: Mode;
  /** CPU ms per query, per part (process-wide). */
  parts: Map<Part, number>;
  /** CPU ms per query, per thread. */
  threads: Map<string, number>;
  totalMs: number;
}

async function pass(kind: string, mode: Mode, each: (q: string, add: (part: Part, since: number) => void) => Promise<void>): Promise<Pass> {
  const parts = new Map<Part, number>();
  const add = (part: Part, since: number): void => {
    parts.set(part, (parts.get(part) ?? 0) + cpuNow() - since);
  };
  const t0 = threadCpu();
  const c0 = cpuNow();
  const from = process.hrtime.bigint() / 1000n;
  for (const q of queries) await each(q, add);
  const totalMs = (cpuNow() - c0) / queries.length;
  // The pass's window on the monotonic clock, in µs as a .cpuprofile's timestamps count: a profile of the whole run
  // can be read for this pass alone.
  console.log(`${kind} ${mode}: monotonic µs ${from} to ${process.hrtime.bigint() / 1000n}`);
  const threads = new Map<string, number>();
  for (const [tid, ms] of diff(threadCpu(), t0)) {
    const name = threadName(tid);
    threads.set(name, (threads.get(name) ?? 0) + ms / queries.length);
  }
  for (const [part, ms] of parts) parts.set(part, ms / queries.length);
  return { kind, mode, parts, threads, totalMs };
}

/** The service's steps one after another, as search.service.ts takes them. */
function partsPass(mode: Mode, kind = 'parts', store: StoreApi = service.store.api): Promise<Pass> {
  return pass(kind, mode, async (q, add) => {
    let c = cpuNow();
    let parsed = parseSearchQuery(q);
    add('parse', c);
    c = cpuNow();
    const corrections = await store.search.corrections(parsed.terms.join(' '));
    if (corrections.length > 0 && searchesCorrections(settings.typo_correction, corrections)) {
      parsed = { ...parseSearchQuery(applyCorrections(q, corrections)), nameKey: parsed.nameKey };
    }
    add('typo lexicon', c);
    const keywordLimit = mode === 'hybrid' ? CANDIDATES * 2 : CANDIDATES;
    let fused: FusedHit[];
    if (mode === 'keyword') {
      c = cpuNow();
      const { hits } = await store.search.keyword(parsed, { filters: {}, settings: keywordSettings, limit: keywordLimit });
      add('keyword', c);
      c = cpuNow();
      fused = rankKeyword(hits.filter((h) => h.score > 0).map((h) => [h.id, h.score] as const), new Map(hits.filter((h) => h.tier > 0).map((h) => [h.id, h.tier])));
      add('fusion', c);
    } else {
      c = cpuNow();
      const vector = await embedder.embed(parsed.rankText);
      add('query embedding', c);
      c = cpuNow();
      const semanticHits = await store.search.semantic({ query: parsed, filters: {}, vector, model: embedder.identity, dimension: embedder.info.dimension, limit: CANDIDATES });
      add('vector search', c);
      c = cpuNow();
      const { hits, also } = await store.search.keyword(parsed, { filters: {}, settings: keywordSettings, limit: keywordLimit, alsoIds: semanticHits.map((h) => h.id) });
      add('keyword (with the semantic candidates)', c);
      c = cpuNow();
      const keyword = [...hits, ...also].filter((h) => h.score > 0).map((h) => [h.id, h.score] as const);
      const tiers = new Map(hits.filter((h) => h.tier > 0).map((h) => [h.id, h.tier]));
      const semanticMissing = semanticHits.length >= CANDIDATES ? (semanticHits[semanticHits.length - 1]?.score ?? null) : null;
      const semantic = semanticHits.map((h) => [h.id, h.score] as const);
      const fusion = activeFusion(embedder.identity, { semantic: settings.semantic_weight, keyword: settings.keyword_weight });
      fused = fuseHybrid({ semantic, keyword, tiers, semanticMissing }, fusion.profile);
      add('fusion', c);
    }
    const page = fused.slice(0, LIMIT);
    c = cpuNow();
    const described = await store.search.describe(page.map((h) => h.id), parsed.rankText);
    add('result rows', c);
    c = cpuNow();
    const cut = await service.snippets.snippets(
      described.files.map((row) => ({ text: row.content_head, summary: row.summary })),
      described.lexemes,
    );
    add('snippets', c);
    c = cpuNow();
    JSON.stringify({ results: described.files.map(({ content_head: _t, ...file }, i) => ({ file, snippet: cut[i]!.text, highlights: cut[i]!.highlights })) });
    add('answer JSON', c);
  });
}

const servicePass = (mode: Mode): Promise<Pass> =>
  pass('service', mode, async (q, add) => {
    const c = cpuNow();
    const outcome = await searchService.search({ query: q, filters: {}, mode });
    if (!outcome.ok) throw new Error(outcome.reason);
    add('SearchService.search', c);
  });

const bodies = new Map<Mode, string[]>();
const httpPass = (mode: Mode): Promise<Pass> => {
  const kept: string[] = [];
  bodies.set(mode, kept);
  return pass('http', mode, async (q, add) => {
    const c = cpuNow();
    const answer = await search(bench, { query: q, mode });
    add('POST /api/search/', c);
    kept.push(JSON.stringify(answer));
  });
};

/** The client's and loopback's share: the same bodies from a bare server, fetched and parsed as bench:search does. */
async function clientPass(mode: Mode): Promise<Pass> {
  const kept = bodies.get(mode) ?? [];
  let i = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(kept[i++ % kept.length]);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  try {
    return await pass('client', mode, async (q, add) => {
      const c = cpuNow();
      await search({ url: `http://127.0.0.1:${address.port}` }, { query: q, mode });
      add('bare server + client', c);
    });
  } finally {
    server.close();
  }
}

const CLIENTS = 8;
/** Wall ms of each search, `clients` clients asking the queries in turn (each twice over with more than one). */
async function latencyPass(mode: Mode, clients: number): Promise<LatencySummary> {
  const total = clients === 1 ? queries.length : 2 * queries.length;
  const { samples } = await drive(bench, queries, mode, clients, (i) => i < total);
  return summarize(samples.map((s) => s.ms));
}
const latencies: { mode: Mode; clients: number; summary: LatencySummary }[] = [];

const load: number[] = [loadavg()[0]!];
const passes: Pass[] = [];
for (let round = 0; round < options.rounds; round++) {
  for (const mode of options.modes) {
    if (options.passes.includes('parts')) passes.push(await partsPass(mode));
    if (inProcess) passes.push(await partsPass(mode, 'inprocess', inProcess.store));
    if (options.passes.includes('service')) passes.push(await servicePass(mode));
    if (options.passes.includes('http')) passes.push(await httpPass(mode));
    if (options.passes.includes('client')) passes.push(await clientPass(mode));
    if (options.passes.includes('latency')) for (const clients of [1, CLIENTS]) latencies.push({ mode, clients, summary: await latencyPass(mode, clients) });
    load.push(loadavg()[0]!);
  }
}
if (options.answers !== undefined) {
  const lines = [...bodies].flatMap(([mode, kept]) =>
    kept.map((body, i) => {
      const answer = JSON.parse(body) as { results: { file: { file_path: string }; relevance_score: number; bm25: number | null; cosine: number | null }[] };
      return JSON.stringify({ mode, query: queries[i], results: answer.results.map((r) => [r.file.file_path, r.relevance_score, r.bm25, r.cosine]) });
    }),
  );
  writeFileSync(options.answers, `${lines.join('\n')}\n`);
}
await bench.close();
await inProcess?.close();
rmSync(scratch, { recursive: true, force: true });

console.log(`bench:search-profile on ${options.dir}: ${queries.length} queries a pass, ${options.rounds} round(s); load average ${load.map((x) => x.toFixed(1)).join(' → ')}`);
for (const mode of options.modes) {
  const mine = passes.filter((p) => p.mode === mode);
  if (mine.length === 0) continue;
  const keys = [...new Set(mine.flatMap((p) => [...p.parts.keys()].map((part) => `${p.kind}: ${part}`)))];
  const threadNames = ['main', 'store', 'snippets', 'query embedder', 'other'];
  const rows = keys.map((key) => {
    const values = mine.flatMap((p) => {
      const ms = p.parts.get(key.slice(p.kind.length + 2));
      return key.startsWith(`${p.kind}: `) && ms !== undefined ? [ms.toFixed(2)] : [];
    });
    return [key, ...values, ...Array<string>(Math.max(0, options.rounds - values.length)).fill('')];
  });
  console.log(`\n${mode}: CPU ms per query, per part (one column a round)`);
  console.log(markdownTable(['part', ...Array.from({ length: options.rounds }, (_, r) => `round ${r + 1}`)], rows));
  console.log(`\n${mode}: CPU ms per query, per pass and thread (mean of the rounds)`);
  const kinds = [...new Set(mine.map((p) => p.kind))];
  console.log(markdownTable(
    ['pass', 'whole process', ...threadNames],
    kinds.map((kind) => {
      const of = mine.filter((p) => p.kind === kind);
      const mean = (f: (p: Pass) => number): number => of.reduce((s, p) => s + f(p), 0) / of.length;
      return [kind, mean((p) => p.totalMs), ...threadNames.map((t) => mean((p) => p.threads.get(t) ?? 0))];
    }),
    2,
  ));
}
if (latencies.length > 0) {
  console.log(`\nwall ms per search (POST /api/search/, the queries in turn; with ${CLIENTS} clients each asked twice)`);
  console.log(markdownTable(
    ['mode', 'clients', 'searches', 'p50', 'p95', 'p99', 'p50 ÷ 1 client'],
    latencies.map(({ mode, clients, summary }) => {
      const one = latencies.find((l) => l.mode === mode && l.clients === 1)!.summary;
      return [mode, String(clients), String(summary.n), summary.p50, summary.p95, summary.p99, `${(summary.p50 / one.p50).toFixed(1)}×`];
    }),
  ));
}
