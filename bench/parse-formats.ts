/**
 * Parses every document in ../shared/datasets/formats and prints per-format outcomes and timings.
 *   npm run build && node dist/bench/parse-formats.js [--verbose] [--runs N]
 * --verbose prints each file's outcome with the start of its text. Timing is wall-clock for the whole set,
 * sequential, in this thread (the first run includes loading pdf.js, jschardet's model, etc.).
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseFile } from '../src/pipeline/stages/parse.js';
import { sharedPath } from '../test/helpers/shared.js';
import { positiveInt, readBenchArgs } from './lib/cli.js';

const { verbose, runs } = readBenchArgs(
  {
    command: 'npm run bench:parse --',
    about: 'Parses every document in ../shared/datasets/formats: per-format outcomes and timings.',
    options: {
      verbose: { type: 'boolean', description: "print each file's outcome with the start of its text" },
      runs: { type: 'string', value: 'N', default: '3', description: 'passes over the set, the last one reported' },
    },
  },
  ({ values }) => ({ verbose: values.verbose, runs: positiveInt('runs', values.runs) }),
);
const options = { maxFileBytes: 50 * 1024 * 1024, maxTextChars: 1_000_000 };

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return listFiles(full);
    return entry.name === 'SOURCE.md' && dir.endsWith('formats') ? [] : [full];
  });
}

const root = sharedPath('datasets', 'formats');
const files = listFiles(root).sort();
const totalBytes = files.reduce((sum, f) => sum + statSync(f).size, 0);
const perFormat = new Map<string, { ok: number; failed: number; chars: number; ms: number; codes: string[] }>();
const runTimes: number[] = [];
const slowest: Array<[string, number]> = [];

for (let run = 0; run < runs; run++) {
  const started = performance.now();
  for (const file of files) {
    const t0 = performance.now();
    const outcome = await parseFile(file, options);
    const ms = performance.now() - t0;
    if (run !== runs - 1) continue;
    slowest.push([path.relative(root, file), ms]);
    const folder = path.basename(path.dirname(file));
    const row = perFormat.get(folder) ?? { ok: 0, failed: 0, chars: 0, ms: 0, codes: [] };
    row.ms += ms;
    if (outcome.ok) {
      row.ok++;
      row.chars += outcome.doc.text.length;
    } else {
      row.failed++;
      row.codes.push(outcome.code);
    }
    perFormat.set(folder, row);
    if (verbose) {
      const name = path.relative(root, file);
      if (outcome.ok) {
        const d = outcome.doc;
        console.log(`OK   ${name} [${d.format} ${d.mime}] title=${JSON.stringify(d.metadata.title ?? null)} chars=${d.text.length}${d.note ? ` note=${d.note}` : ''}`);
        console.log(`     ${JSON.stringify(d.text.slice(0, 300))}`);
      } else {
        console.log(`FAIL ${name} ${outcome.code}: ${outcome.reason}`);
      }
    }
  }
  runTimes.push(performance.now() - started);
}

console.log(`\n${files.length} files, ${(totalBytes / 1024 / 1024).toFixed(2)} MB; run times (ms): ${runTimes.map((t) => t.toFixed(0)).join(', ')}`);
console.log('| format | files | ok | failed | failure codes | chars extracted | time (ms, last run) |');
console.log('|---|---|---|---|---|---|---|');
for (const [format, row] of [...perFormat].sort()) {
  console.log(`| ${format} | ${row.ok + row.failed} | ${row.ok} | ${row.failed} | ${row.codes.join(', ')} | ${row.chars} | ${row.ms.toFixed(1)} |`);
}
console.log(`\nslowest files (last run): ${slowest.sort((a, b) => b[1] - a[1]).slice(0, 5).map(([f, ms]) => `${f} ${ms.toFixed(0)} ms`).join(', ')}`);
