/**
 * What a pipeline thread's heap limit costs in CPU and memory (issue 17). V8 lets an old generation grow past its
 * live data by a factor that rises with the limit (~1.35 at 384 MB, ~1.6 at 1,024, 4 from 2,048), so a low limit
 * means more full collections, each marking the thread's whole live heap (wink's model, the modules' code). Each
 * round is a process of its own (bench/lib/pipeline-heap-child.ts) running a worker thread with the limits given,
 * as the pipeline pool starts one, over the same files: parse, analyse and embed, one after the other. The limits
 * are alternated round by round; CPU counts every thread of the process (V8's helpers mark concurrently), the
 * thread's start included (its modules and the embedder's table, about a CPU-second: the same in every round).
 *   npm run bench:pipeline-heap -- DIR [--every N] [--limits 384,1024] [--young MB] [--rounds N]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PIPELINE_HEAP_LIMITS } from '../src/pipeline/pool.js';
import { positiveInt, positiveIntList, readBenchArgs } from './lib/cli.js';
import { listFiles } from './lib/files.js';
import type { HeapRound } from './lib/pipeline-heap-child.js';
import { markdownTable } from './lib/search-bench.js';

const { dir, every, limits, young, rounds } = readBenchArgs(
  {
    command: 'npm run bench:pipeline-heap --',
    about: "CPU, full collections and peak RSS of one pipeline thread's work over a folder, for several old-generation limits.",
    positional: { name: 'DIR', description: 'a folder of documents (e.g. "$(bash bench/fetch-debian-docs.sh)")' },
    options: {
      every: { type: 'string', value: 'N', default: '5', description: 'use every N-th file of DIR, sorted by path (1: all)' },
      limits: { type: 'string', value: 'MB,...', default: `384,${PIPELINE_HEAP_LIMITS.maxOldGenerationSizeMb}`, description: 'old-generation limits to compare (maxOldGenerationSizeMb)' },
      young: { type: 'string', value: 'MB', default: String(PIPELINE_HEAP_LIMITS.maxYoungGenerationSizeMb), description: 'the young generation (maxYoungGenerationSizeMb)' },
      rounds: { type: 'string', value: 'N', default: '2', description: 'rounds of every limit, alternated' },
    },
  },
  ({ values, positional }) => {
    if (!positional) throw new Error('DIR: a folder of documents is required');
    return {
      dir: positional,
      every: positiveInt('every', values.every),
      limits: positiveIntList('limits', values.limits),
      young: positiveInt('young', values.young),
      rounds: positiveInt('rounds', values.rounds),
    };
  },
);

const load = (): string => loadavg().map((l) => l.toFixed(2)).join(', ');
const files = (await listFiles(dir)).filter((_, i) => i % every === 0);
if (files.length === 0) throw new Error(`no files in ${dir}`);
const scratch = mkdtempSync(path.join(tmpdir(), 'filesift-pipeline-heap-'));
const listFile = path.join(scratch, 'files.txt');
writeFileSync(listFile, `${files.join('\n')}\n`);
const child = fileURLToPath(new URL('./lib/pipeline-heap-child.js', import.meta.url));
console.log(`${files.length} files (1 in ${every} of ${dir}); young generation ${young} MB; load ${load()}`);

const results = new Map<number, HeapRound[]>(limits.map((limit) => [limit, []]));
try {
  // A failed round (e.g. a limit too small for one of the files) ends the runs: the table shows what was measured.
  runs: for (let round = 1; round <= rounds; round++) {
    for (const limit of limits) {
      let out: string;
      try {
        out = execFileSync(process.execPath, [child, String(limit), String(young), listFile], { encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'pipe', 'pipe'] });
      } catch (err) {
        const lines = String((err as { stderr?: unknown }).stderr ?? '').split('\n');
        console.error(`round ${round} with ${limit} MB failed: ${lines.find((line) => /ERR_|Error/.test(line))?.trim() ?? (err as Error).message}`);
        process.exitCode = 1;
        break runs;
      }
      const result = JSON.parse(out.trim().split('\n').at(-1)!) as HeapRound;
      results.get(limit)!.push(result);
      console.log(`  round ${round}, ${limit} MB: ${(result.cpuMs / result.files).toFixed(2)} CPU ms a file, ${result.majorGcs} full collections, peak ${result.peakRssMb.toFixed(0)} MB`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const each = (list: HeapRound[], pick: (r: HeapRound) => number, digits: number): string => list.map((r) => pick(r).toFixed(digits)).join(' / ');
console.log(
  `\n${markdownTable(
    ['old generation (MB)', 'CPU ms a file', 'full collections', 'peak RSS (MB)'],
    [...results].map(([limit, list]) => [
      `${limit}${limit === PIPELINE_HEAP_LIMITS.maxOldGenerationSizeMb ? ' (as built)' : ''}`,
      each(list, (r) => r.cpuMs / r.files, 2),
      each(list, (r) => r.majorGcs, 0),
      each(list, (r) => r.peakRssMb, 0),
    ]),
  )}`,
);
console.log(`load at the end: ${load()}`);
