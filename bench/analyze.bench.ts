/**
 * Speed of the local analyzer on SciFact (5,183 abstracts, one file each), on one thread.
 *
 *   npm run bench:analyze -- [--limit N] [--show N] [--dir PATH]
 *
 * Prints the one-time load (wink model + background vocabulary), then ms/file over the corpus (mean, p50, p95,
 * max) and, with --show, the analysis of the first N files.
 */
import { ANALYZE_MAX_INPUT_CHARS } from '../src/indexing/indexer.js';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { analyzeLocally } from '../src/pipeline/analyze/local/index.js';
import type { ParsedDocument } from '../src/pipeline/types.js';
import { nonNegativeInt, positiveInt, readBenchArgs } from './lib/cli.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { dir, limit, show } = readBenchArgs(
  {
    command: 'npm run bench:analyze --',
    about: 'Speed of the local analyzer on SciFact (one file each), on one thread.',
    options: {
      limit: { type: 'string', value: 'N', description: 'analyse only the first N files (default all)' },
      show: { type: 'string', value: 'N', default: '0', description: 'print the analysis of the first N files' },
      dir: { type: 'string', value: 'PATH', description: 'folder of text files (default ../shared/datasets/scifact/files)' },
    },
  },
  ({ values }) => ({
    dir: values.dir ?? path.resolve(repoRoot, '..', 'shared', 'datasets', 'scifact', 'files'),
    limit: positiveInt('limit', values.limit, Infinity),
    show: nonNegativeInt('show', values.show),
  }),
);
const maxInputChars = ANALYZE_MAX_INPUT_CHARS;

function toDocument(file: string): ParsedDocument {
  const stat = statSync(file);
  const filename = path.basename(file);
  return {
    path: file,
    filename,
    extension: path.extname(filename).slice(1).toLowerCase(),
    size: stat.size,
    created: stat.birthtime.toISOString(),
    modified: stat.mtime.toISOString(),
    accessed: stat.atime.toISOString(),
    format: 'text',
    mime: 'text/plain',
    text: readFileSync(file, 'utf8'),
    metadata: {},
    contentHash: '',
    textTruncated: false,
  };
}

const names = readdirSync(dir).sort().slice(0, limit);
const docs = names.map((name) => toDocument(path.join(dir, name)));
console.log(`${docs.length} files from ${dir}, ${(docs.reduce((sum, doc) => sum + doc.text.length, 0) / docs.length).toFixed(0)} chars/file on average`);

let started = performance.now();
analyzeLocally({ ...toDocument(path.join(dir, names[0] ?? '')), text: 'Warm-up text. It loads the models.' }, { maxInputChars });
console.log(`one-time load (wink model, background vocabulary): ${(performance.now() - started).toFixed(0)} ms`);

const times: number[] = [];
const cpuBefore = process.cpuUsage();
started = performance.now();
for (const [index, doc] of docs.entries()) {
  const t0 = performance.now();
  const analysis = analyzeLocally(doc, { maxInputChars });
  times.push(performance.now() - t0);
  if (index < show) console.log(JSON.stringify({ file: doc.filename, ...analysis }, null, 2));
}
const total = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
times.sort((a, b) => a - b);
const at = (q: number): string => (times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0).toFixed(2);
console.log(
  `ms/file: mean ${(total / docs.length).toFixed(2)}, p50 ${at(0.5)}, p95 ${at(0.95)}, max ${at(1)}; ` +
    `${((docs.length / total) * 1000).toFixed(0)} files/s on one thread; ` +
    `CPU time ${((cpu.user + cpu.system) / 1000 / docs.length).toFixed(2)} ms/file (wall time suffers when other processes compete); ` +
    `RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`,
);

// One large document at the input cap: the cost of the biggest file the analyzer will ever see.
const large = docs.map((doc) => doc.text).join('\n\n').slice(0, maxInputChars * 2);
const largeStarted = performance.now();
const largeAnalysis = analyzeLocally({ ...toDocument(path.join(dir, names[0] ?? '')), text: large }, { maxInputChars });
console.log(
  `large document (${large.length} chars, capped at ${maxInputChars}): ${(performance.now() - largeStarted).toFixed(0)} ms, ` +
    `${largeAnalysis.keywords.length} keywords, summary ${largeAnalysis.summary.length} chars`,
);
