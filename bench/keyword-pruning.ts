/**
 * What each keyword evaluator costs per query on a built index (Block-Max MaxScore and term at a time, search.ts),
 * how much of a query's postings Block-Max reads, and how much an ideal Block-Max
 * evaluation could skip: one that knew the final θ (the k-th best score) in advance and skipped every block whose
 * bound, its own plus the largest bound of each other word's blocks overlapping its doc range, stays below θ. When
 * even that skips nothing, no block layout or evaluation order helps these queries (issue 13).
 *   npm run bench:pruning -- PGLITE_DIR [--queries N] [--limit K]
 * PGLITE_DIR: a PGlite data directory, e.g. a ladder rung's `<cache>/pglite-<key>-<files>/pglite` (bench:search).
 * Open a copy: PGlite writes to the directory it opens (a checkpoint at close).
 */
import { existsSync } from 'node:fs';
import { parseSearchQuery } from '../src/search/query-parser.js';
import { openPglite } from '../src/store/engines/pglite.js';
import { buildBlocksStatement, buildTermsStatement, DEFAULT_KEYWORD_RANKING, fieldWeightList } from '../src/store/keyword/query.js';
import { decodeFloat8 } from '../src/store/binary.js';
import { decodeBlockBounds, scorePostings, type Fields } from '../src/store/keyword/layout.js';
import { blockBound, scorer, searchKeyword } from '../src/store/keyword/search.js';
import type { TopKStats } from '../src/store/keyword/top-k.js';
import type { SqlDatabase } from '../src/store/sql.js';
import { positiveInt, readBenchArgs } from './lib/cli.js';
import { checkSciFact, loadQueries } from './lib/scifact.js';
import { markdownTable } from './lib/search-bench.js';

const { dir, queries: queryCount, limit } = readBenchArgs(
  {
    command: 'npm run bench:pruning --',
    about: 'Postings read by the keyword evaluator on a built index, against what an ideal Block-Max evaluation could skip.',
    positional: { name: 'PGLITE_DIR', description: 'a PGlite data directory (open a copy)' },
    options: {
      queries: { type: 'string', value: 'N', default: '100', description: 'SciFact test queries measured' },
      limit: { type: 'string', value: 'K', default: '100', description: 'results asked (the keyword side of a search asks 100, hybrid 200)' },
    },
  },
  ({ values, positional }) => {
    if (!positional || !existsSync(positional)) throw new Error(`PGLITE_DIR: no such directory: ${positional ?? '(none given)'}`);
    return { dir: positional, queries: positiveInt('queries', values.queries), limit: positiveInt('limit', values.limit) };
  },
);

const scifact = checkSciFact();
if (!scifact.ok) {
  console.error(`bench:pruning needs the SciFact queries: ${scifact.reason}`);
  process.exit(1);
}

interface Block {
  first: number;
  last: number;
  n: number;
  ub: number;
}

/** Per word: its blocks with their bounds, and every posting's score (all blocks read: the exhaustive answer). */
async function exhaustive(db: SqlDatabase, text: string, weights: Fields): Promise<{ blocks: Block[][]; scores: number[] }> {
  const terms = buildTermsStatement(text, DEFAULT_KEYWORD_RANKING);
  const blocks: Block[][] = [];
  const byDoc = new Map<number, number>();
  for (const [lexeme, weight, c1, c2, bounds] of await db.queryBytes(terms.text, terms.params)) {
    // The evaluator's own scorer and block bound: the ideal evaluation judges blocks exactly as search does.
    const score = scorer(decodeFloat8(weight!), decodeFloat8(c1!), decodeFloat8(c2!));
    const mine = decodeBlockBounds(bounds!).map((x) => ({ first: x.first, last: x.last, n: x.n, ub: blockBound(score, weights, x.maxTf, x.minLen) }));
    blocks.push(mine);
    const word = Buffer.from(lexeme!).toString('utf8');
    const read = buildBlocksStatement(mine.map(() => word), mine.map((x) => x.first));
    for (const [, postings] of await db.queryBytes(read.text, read.params)) {
      const scored = scorePostings(postings!, weights, score);
      scored.docs.forEach((doc, i) => byDoc.set(doc, (byDoc.get(doc) ?? 0) + scored.scores[i]!));
    }
  }
  return { blocks, scores: [...byDoc.values()].sort((x, y) => y - x) };
}

/** Postings in blocks an evaluation knowing θ could skip: bound = own + Σ other words' largest overlapping bound. */
function skippable(blocks: Block[][], theta: number): number {
  let skipped = 0;
  blocks.forEach((mine, t) => {
    for (const block of mine) {
      let bound = block.ub;
      blocks.forEach((other, u) => {
        if (u === t) return;
        let most = 0;
        for (const o of other) if (o.last >= block.first && o.first <= block.last && o.ub > most) most = o.ub;
        bound += most;
      });
      if (bound < theta) skipped += block.n;
    }
  });
  return skipped;
}

const db = await openPglite(dir);
try {
  const weights = fieldWeightList(DEFAULT_KEYWORD_RANKING);
  const queries = loadQueries('test').queries.slice(0, queryCount);
  let total = 0;
  let read = 0;
  let ideal = 0;
  const cpuMs = { 'block-max': 0, 'term-at-a-time': 0 };
  const cpuOf = async (run: () => Promise<unknown>): Promise<number> => {
    const cpu = process.cpuUsage();
    await run();
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / 1000;
  };
  for (const [i, { text }] of queries.entries()) {
    const parsed = parseSearchQuery(text);
    // Both evaluators on every query, the one going first alternating (the second finds the pages warmer).
    let stats: TopKStats | undefined;
    for (const evaluator of i % 2 === 0 ? (['block-max', 'term-at-a-time'] as const) : (['term-at-a-time', 'block-max'] as const)) {
      cpuMs[evaluator] += await cpuOf(async () => {
        const result = await searchKeyword(db, parsed, { limit }, { evaluator });
        if (evaluator === 'block-max') stats = result.stats;
      });
    }
    const { blocks, scores } = await exhaustive(db, parsed.rankText, weights);
    total += stats!.postingsTotal;
    read += stats!.postingsRead;
    ideal += skippable(blocks, scores[limit - 1] ?? 0);
  }
  const n = queries.length;
  console.log(`\nKeyword pruning on ${dir}: ${n} SciFact test queries, limit ${limit}\n`);
  console.log(
    markdownTable(
      ['postings per query', 'read by Block-Max', 'read share', 'skippable by an ideal Block-Max (θ known)', 'Block-Max CPU ms/query', 'term at a time CPU ms/query'],
      [
        [
          Math.round(total / n).toLocaleString('en'),
          Math.round(read / n).toLocaleString('en'),
          `${((100 * read) / Math.max(1, total)).toFixed(1)} %`,
          `${((100 * ideal) / Math.max(1, total)).toFixed(1)} %`,
          (cpuMs['block-max'] / n).toFixed(1),
          (cpuMs['term-at-a-time'] / n).toFixed(1),
        ],
      ],
    ),
  );
} finally {
  await db.close();
}
