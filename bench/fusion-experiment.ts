/**
 * Chooses the active embedding model's fusion profile (search/fuse.ts, search/fusion-profiles.ts) on SciFact
 * *train*, and reports it on *test*:
 *
 *   npm run bench:fusion -- [--data-dir DIR] [--lists FILE]        (FILESIFT_MODEL_DIR: that transformer model)
 *
 * Indexes SciFact through the real service (or re-uses --data-dir), then asks its store for each query's keyword
 * candidates (BM25, top 300) and semantic candidates (best-chunk cosine through the vector index, top 300): the
 * very lists a hybrid search fuses, with their raw scores. --lists keeps them in a JSON file (a re-run reads it and
 * skips the service). Offline, it then replays a hybrid search as the service runs it (top N of each side, their
 * scores filled in for each other's candidates) for every profile of a grid:
 *
 * - floor: the cosine below which a file with no query word is left out, *measured*: the 5th percentile of the
 *   cosines between train queries and their relevant documents (95 % of what the semantic side finds of them lies
 *   above it);
 * - semantic weight and match bonus: best train nDCG@10 among the profiles whose train R@100 is at least keyword's
 *   and whose strong cosine (from which a file without any query word may pass one with a query word) is at least
 *   the median cosine of train queries to their relevant documents: "strong" means as similar as a typical match.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fuseHybrid, strongCosine, type FusionProfile } from '../src/search/fuse.js';
import { parseSearchQuery } from '../src/search/query-parser.js';
import { DEFAULT_KEYWORD_RANKING } from '../src/store/keyword/query.js';
import { indexDirectory, startBenchService } from './lib/bench-service.js';
import { readBenchArgs } from './lib/cli.js';
import { evaluateRuns, percentile, type RunScores } from './lib/metrics.js';
import { checkSciFact, loadQueries, type SciFactQueries } from './lib/scifact.js';
import { corpusIdOf, markdownTable } from './lib/search-bench.js';

const DEPTH = 300;
const LIMIT = 100;

/** One query's candidates: [corpus id, score] by side, best first; `full` when the side returned DEPTH rows. */
interface QueryLists {
  keyword: [string, number][];
  tiers: [string, number][];
  semantic: [string, number][];
  keywordFull: boolean;
  semanticFull: boolean;
}

interface Lists {
  model: string;
  train: Record<string, QueryLists>;
  test: Record<string, QueryLists>;
}

const args = readBenchArgs(
  {
    command: 'npm run bench:fusion --',
    about: "Chooses the active model's fusion profile on SciFact train (floor, weights, match bonus); reports it on test.",
    options: {
      'data-dir': { type: 'string', value: 'DIR', description: 'keep the index there; a re-run reuses it' },
      lists: { type: 'string', value: 'FILE', description: 'keep the candidate lists in this JSON file; a re-run reads it instead of the service' },
    },
    notes: ['FILESIFT_MODEL_DIR set: the service embeds with that transformer model instead of the built-in one.'],
  },
  ({ values }) => ({ dataDir: values['data-dir'], listsFile: values.lists }),
);

async function collect(): Promise<Lists> {
  const data = checkSciFact();
  if (!data.ok) throw new Error(data.reason);
  const bench = await startBenchService(args.dataDir ? { dataDir: args.dataDir } : {});
  try {
    const run = await indexDirectory(bench, data.files, args.dataDir === undefined);
    console.log(`indexed: ${run.indexed} indexed, ${run.skipped} skipped, ${run.failed} failed in ${run.seconds.toFixed(1)} s`);
    const lane = await bench.service.models.queryLane();
    if (!lane.embedder) throw new Error(`no embedder: ${lane.reason}`);
    const embedder = lane.embedder;
    const search = bench.service.store.api.search;
    const names = new Map<number, string>();
    const nameOf = async (ids: number[]): Promise<void> => {
      const unknown = [...new Set(ids)].filter((id) => !names.has(id));
      for (let i = 0; i < unknown.length; i += 500) {
        for (const f of (await search.describe(unknown.slice(i, i + 500), '')).files) names.set(f.id, corpusIdOf(f.filename) ?? `?${f.id}`);
      }
    };
    const lists = async (split: SciFactQueries): Promise<Record<string, QueryLists>> => {
      const out: Record<string, QueryLists> = {};
      const t0 = performance.now();
      for (const q of split.queries) {
        const parsed = parseSearchQuery(q.text);
        const kw = (await search.keyword(parsed, { limit: DEPTH, filters: {}, settings: DEFAULT_KEYWORD_RANKING })).hits;
        const vector = await embedder.embed(parsed.rankText);
        const sem = await search.semantic({ query: parsed, filters: {}, vector, model: embedder.identity, dimension: embedder.info.dimension, limit: DEPTH });
        await nameOf([...kw.map((h) => h.id), ...sem.map((h) => h.id)]);
        out[q.id] = {
          keyword: kw.filter((h) => h.score > 0).map((h) => [names.get(h.id)!, h.score]),
          tiers: kw.filter((h) => h.tier > 0).map((h) => [names.get(h.id)!, h.tier]),
          semantic: sem.map((h) => [names.get(h.id)!, h.score]),
          keywordFull: kw.length >= DEPTH,
          semanticFull: sem.length >= DEPTH,
        };
      }
      console.log(`  ${split.queries.length} queries in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      return out;
    };
    return { model: embedder.identity, train: await lists(loadQueries('train')), test: await lists(loadQueries('test')) };
  } finally {
    await bench.close();
  }
}

/** How the service gathers candidates for a hybrid search (search.service.ts): the replay follows it. */
interface Candidates {
  /** Keyword candidates taken (top N by BM25). */
  keyword: number;
  /** Semantic candidates taken (top N by cosine). */
  semantic: number;
}

/** A hybrid search's fusion input, as the service gathers it, ready to fuse with any profile. */
interface Prepared {
  input: { semantic: [number, number][]; keyword: [number, number][]; tiers: Map<number, number> };
  names: string[];
}

/** Top N of each side, each filled in with the other side's score (computed once per query and candidate choice). */
function prepare(lists: QueryLists, c: Candidates): Prepared {
  const kwAll = new Map(lists.keyword);
  const semAll = new Map(lists.semantic);
  const kw = lists.keyword.slice(0, c.keyword);
  const sem = lists.semantic.slice(0, c.semantic);
  const ids = new Map<string, number>();
  const num = (id: string): number => ids.get(id) ?? ids.set(id, ids.size).get(id)!;
  const keyword = new Map(kw.map(([id, s]) => [num(id), s]));
  const semantic = new Map(sem.map(([id, s]) => [num(id), s]));
  const semMin = lists.semantic[lists.semantic.length - 1]?.[1] ?? 0;
  // Semantic candidates get their BM25 (0 when they have no query word); keyword candidates their cosine (below the
  // deepest list's last when not in it).
  for (const [id] of sem) if (!keyword.has(num(id)) && kwAll.has(id)) keyword.set(num(id), kwAll.get(id)!);
  for (const [id] of kw) if (!semantic.has(num(id))) semantic.set(num(id), semAll.get(id) ?? (lists.semanticFull ? semMin : -1));
  const tiers = new Map(lists.tiers.map(([id, t]) => [num(id), t]));
  return { input: { semantic: [...semantic], keyword: [...keyword], tiers }, names: [...ids.keys()] };
}

function replay(p: Prepared, profile: FusionProfile): string[] {
  return fuseHybrid(p.input, profile)
    .slice(0, LIMIT)
    .map((h) => p.names[h.id]!);
}

/** Each split's prepared queries, per candidate choice. */
function prepareAll(all: Record<string, QueryLists>, c: Candidates): Map<string, Prepared> {
  return new Map(Object.entries(all).map(([q, l]) => [q, prepare(l, c)]));
}

function scorePrepared(all: Map<string, Prepared>, qrels: SciFactQueries['qrels'], profile: FusionProfile): RunScores {
  return evaluateRuns(new Map([...all].map(([q, p]) => [q, replay(p, profile)])), qrels);
}

function score(all: Record<string, QueryLists>, qrels: SciFactQueries['qrels'], rank: (l: QueryLists) => string[]): RunScores {
  return evaluateRuns(new Map(Object.entries(all).map(([q, l]) => [q, rank(l)])), qrels);
}

/** The old fusion (before this experiment): 0.1 · min-max(cos) + 0.9 · min-max(BM25), missing = 0, top 100 each. */
function oldFusion(l: QueryLists): string[] {
  const minmax = (xs: [string, number][]): Map<string, number> => {
    const v = xs.map(([, s]) => s);
    const lo = Math.min(...v);
    const range = Math.max(...v) - lo;
    return new Map(xs.map(([id, s]) => [id, range > 0 ? (s - lo) / range : 1]));
  };
  const kw = minmax(l.keyword.slice(0, LIMIT));
  const sem = minmax(l.semantic.slice(0, LIMIT));
  const ids = new Set([...kw.keys(), ...sem.keys()]);
  return [...ids]
    .map((id) => [id, 0.1 * (sem.get(id) ?? 0) + 0.9 * (kw.get(id) ?? 0)] as const)
    .sort((a, b) => b[1] - a[1])
    .slice(0, LIMIT)
    .map(([id]) => id);
}

/** Cosines of train queries to their relevant documents, where the semantic list reached them; and how many it did not. */
function relevantCosines(all: Record<string, QueryLists>, qrels: SciFactQueries['qrels']): { found: number[]; missed: number } {
  const found: number[] = [];
  let missed = 0;
  for (const [q, l] of Object.entries(all)) {
    const cos = new Map(l.semantic);
    for (const d of qrels.get(q) ?? []) {
      const c = cos.get(d);
      if (c === undefined) missed++;
      else found.push(c);
    }
  }
  return { found, missed };
}

const f4 = (x: number): string => x.toFixed(4);

async function main(): Promise<void> {
  console.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${cpus().length} cores`);
  let lists: Lists;
  if (args.listsFile && existsSync(args.listsFile)) {
    lists = JSON.parse(readFileSync(args.listsFile, 'utf8')) as Lists;
    console.log(`candidate lists of ${lists.model} read from ${args.listsFile}`);
  } else {
    lists = await collect();
    if (args.listsFile) writeFileSync(args.listsFile, JSON.stringify(lists));
  }
  const train = loadQueries('train');
  const test = loadQueries('test');

  const { found: rel, missed } = relevantCosines(lists.train, train.qrels);
  const floor = Math.round(percentile(rel, 0.05) * 100) / 100;
  // "Strong": at least as similar as the typical relevant document (the median); only then may a file without
  // any query word pass one with a query word.
  const strongAtLeast = percentile(rel, 0.5);
  console.log(`\n${lists.model}: cosine of train queries to their relevant documents (${rel.length} within the semantic lists, ${missed} beyond them): ` +
    `p1 ${f4(percentile(rel, 0.01))}, p5 ${f4(percentile(rel, 0.05))}, p10 ${f4(percentile(rel, 0.1))}, median ${f4(strongAtLeast)}; ` +
    `floor = p5 rounded = ${floor}; a profile's strong cosine must be ≥ the median`);

  const keywordOnly = (l: QueryLists): string[] => l.keyword.slice(0, LIMIT).map(([id]) => id);
  const semanticOnly = (l: QueryLists): string[] => l.semantic.slice(0, LIMIT).map(([id]) => id);
  const kwTrain = score(lists.train, train.qrels, keywordOnly);

  const weights = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8];
  const bonuses = [0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1];
  // The service's design first (search.service.ts: keyword candidates twice the semantic ones, so a file the semantic
  // side ranks high is scored with its true BM25 even past the keyword top 100); the others for comparison.
  const candidateChoices: Candidates[] = [{ keyword: 200, semantic: 100 }, { keyword: 100, semantic: 100 }, { keyword: 200, semantic: 200 }];
  let best: { profile: FusionProfile; candidates: Candidates; train: RunScores } | null = null;
  const prepared = new Map(candidateChoices.map((c) => [c, { train: prepareAll(lists.train, c), test: prepareAll(lists.test, c) }]));
  for (const candidates of candidateChoices.slice(0, 1))
    for (const w of weights)
      for (const matchBonus of bonuses) {
        const profile: FusionProfile = { semanticWeight: w, keywordWeight: Math.round((1 - w) * 100) / 100, matchBonus, floor };
        if (strongCosine(profile) < strongAtLeast) continue;
        const s = scorePrepared(prepared.get(candidates)!.train, train.qrels, profile);
        if (s.recallAt100 + 1e-9 < kwTrain.recallAt100) continue;
        if (!best || s.ndcgAt10 > best.train.ndcgAt10 + 1e-9) best = { profile, candidates, train: s };
      }
  if (!best) throw new Error('no profile keeps train R@100 at keyword level');

  const rows: (string | number)[][] = [];
  const line = (name: string, a: RunScores, b: RunScores): void => {
    rows.push([name, f4(a.ndcgAt10), f4(a.recallAt100), f4(b.ndcgAt10), f4(b.recallAt100)]);
  };
  const add = (name: string, rank: (l: QueryLists) => string[]): void => line(name, score(lists.train, train.qrels, rank), score(lists.test, test.qrels, rank));
  const addProfile = (name: string, profile: FusionProfile, c: Candidates): void => {
    const sets = prepared.get(c)!;
    line(name, scorePrepared(sets.train, train.qrels, profile), scorePrepared(sets.test, test.qrels, profile));
  };
  add('keyword only', keywordOnly);
  add('semantic only', semanticOnly);
  add('hybrid, old fusion (0.1·min-max cos + 0.9·min-max BM25)', oldFusion);
  const p = best.profile;
  addProfile(`hybrid, chosen: w_sem ${p.semanticWeight}, w_kw ${p.keywordWeight}, bonus ${p.matchBonus}, floor ${p.floor}; ` +
    `candidates ${best.candidates.keyword}+${best.candidates.semantic}`, p, best.candidates);
  for (const c of candidateChoices.filter((c) => c !== best.candidates)) addProfile(`  same profile, candidates ${c.keyword}+${c.semantic}`, p, c);
  addProfile('  same, match bonus 0 (no guarantee for keyword matches)', { ...p, matchBonus: 0 }, best.candidates);
  console.log(`\n${lists.model}: fusion on SciFact (tuned on train only), top ${LIMIT}:\n`);
  console.log(markdownTable(['mode', 'train nDCG@10', 'train R@100', 'test nDCG@10', 'test R@100'], rows));
  const strong = strongCosine(p);
  console.log(`\nprofile: ${JSON.stringify(p)}; a file with no query word outranks one with a query word from cosine ${strong > 1 ? 'never (> 1)' : f4(strong)}`);
  const padded = [...prepared.get(best.candidates)!.test.values()].map((q) => replay(q, p).length);
  console.log(`test answers: ${f4(padded.reduce((a, b) => a + b, 0) / padded.length)} results on average (limit ${LIMIT})`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
