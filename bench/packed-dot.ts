/**
 * The vector lists' inner loop (issue 13): a search's dot products of one query with the packed vectors of its
 * probed lists, in JavaScript (src/store/vectors/layout.ts, scorePacked: the reference, and what served before stop
 * 60) and in WebAssembly with SIMD (packed-dot.ts, what a search runs), alternated round by round in one process.
 * The blocks are those of a search's lists: `--vectors` packed vectors (a search at 5,000 files probes ~14,400, at
 * 100,000 ~15,100), in blocks as the store writes them (blockEntries: 62 a block at 100 dimensions), random unit
 * vectors and queries. Prints CPU ms a search, ns a component, and the largest difference between the two.
 *   npm run bench:packed-dot -- [--dims 100,384,768] [--vectors N] [--rounds N]
 */
import { packVectors, scorePacked } from '../src/store/vectors/layout.js';
import { normalizeAt } from '../src/store/vectors/lists.js';
import { PackedScorer } from '../src/store/vectors/packed-dot.js';
import { blockEntries } from '../src/store/vectors/vector-lists.js';
import { seededRandom } from '../scripts/lib/seeded-random.js';
import { positiveInt, positiveIntList, readBenchArgs } from './lib/cli.js';
import { markdownTable } from './lib/search-bench.js';
import { cpuMsSince, loadAverages } from './lib/proc.js';

const { dims, vectors, rounds } = readBenchArgs(
  {
    command: 'npm run bench:packed-dot --',
    about: "A search's packed-vector dot products in JavaScript and in WebAssembly (SIMD), alternated in one process.",
    options: {
      dims: { type: 'string', value: 'D,D,…', default: '100,384,768', description: 'vector dimensions' },
      vectors: { type: 'string', value: 'N', default: '15000', description: 'packed vectors a search scores' },
      rounds: { type: 'string', value: 'N', default: '5', description: 'rounds of both kernels, alternated' },
    },
  },
  ({ values }) => ({ dims: positiveIntList('dims', values.dims), vectors: positiveInt('vectors', values.vectors), rounds: positiveInt('rounds', values.rounds) }),
);

const QUERIES = 20;

function units(n: number, dim: number, next: () => number): Float32Array {
  const out = new Float32Array(n * dim);
  for (let r = 0; r < n; r++) {
    for (let d = 0; d < dim; d++) out[r * dim + d] = next() * 2 - 1;
    normalizeAt(out, r * dim, dim);
  }
  return out;
}

console.log(`${vectors} packed vectors a search, ${QUERIES} queries a round, ${rounds} rounds alternated; load ${loadAverages()}`);
const rows: string[][] = [];
for (const dim of dims) {
  const next = seededRandom(dim);
  const perBlock = blockEntries(dim);
  const blocks: Uint8Array[] = [];
  for (let left = vectors; left > 0; left -= perBlock) blocks.push(packVectors(units(Math.min(perBlock, left), dim, next), dim));
  const queries = Array.from({ length: QUERIES }, () => units(1, dim, next));
  const out = new Float32Array(perBlock);
  const check = new Float32Array(perBlock);
  const kernels = {
    javascript: (q: Float32Array): void => {
      for (const block of blocks) scorePacked(block, dim, q, out);
    },
    webassembly: (q: Float32Array): void => {
      const scorer = new PackedScorer(q, dim);
      for (const block of blocks) scorer.score(block, out);
    },
  };
  // The largest difference of the two, over every query's scores, against the largest score.
  let worst = 0;
  let largest = 0;
  for (const q of queries) {
    const scorer = new PackedScorer(q, dim);
    for (const block of blocks) {
      const n = scorePacked(block, dim, q, check);
      scorer.score(block, out);
      for (let i = 0; i < n; i++) {
        worst = Math.max(worst, Math.abs(out[i]! - check[i]!));
        largest = Math.max(largest, Math.abs(check[i]!));
      }
    }
  }
  const ms: Record<keyof typeof kernels, number[]> = { javascript: [], webassembly: [] };
  for (let round = 0; round <= rounds; round++) {
    // Round 0 warms both up and is not counted.
    for (const name of (round % 2 === 0 ? ['javascript', 'webassembly'] : ['webassembly', 'javascript']) as (keyof typeof kernels)[]) {
      const start = process.cpuUsage();
      for (const q of queries) kernels[name](q);
      if (round > 0) ms[name].push(cpuMsSince(start) / QUERIES);
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const js = median(ms.javascript);
  const wasm = median(ms.webassembly);
  const ns = (msPerSearch: number): string => ((msPerSearch * 1e6) / (vectors * dim)).toFixed(2);
  rows.push([String(dim), js.toFixed(3), ns(js), wasm.toFixed(3), ns(wasm), `${(js / wasm).toFixed(1)}×`, (worst / largest).toExponential(1)]);
}
console.log(
  markdownTable(
    ['dimensions', 'JavaScript: CPU ms a search', 'ns a component', 'WebAssembly: CPU ms a search', 'ns a component', 'ratio', 'largest difference ÷ largest score'],
    rows,
  ),
);
console.log(`load at the end ${loadAverages()}`);
