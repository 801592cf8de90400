/**
 * Sealing the keyword index as a bulk run does, large documents in parts (sql/0019: more distinct words than
 * LARGE_DOCUMENT_POSTINGS, or --large, sealed alone that many words a call) against sealed whole (the bound lifted: the seal
 * before sql/0019), in one process, the rounds alternated: the sealing's CPU ms a file, its calls, the longest, and
 * the blocks it leaves before compaction.
 *
 *   npm run bench:seal -- DIR [--every N] [--rounds N] [--large N]
 *
 * The texts are the pipeline's own (parseFile with the service's default limits), every Nth file of DIR. Each
 * round writes them into a fresh PGlite database 256 at a time (the keyword triggers, no chunks) and seals after
 * each batch in slices of 64 documents, as upkeep seals a bulk run; only the seal calls are timed.
 */
import path from 'node:path';
import { parseLimits } from '../src/indexing/indexer.js';
import { parseFile } from '../src/pipeline/stages/parse.js';
import { defaultSettings } from '../src/settings/schema.js';
import { openPglite } from '../src/store/engines/pglite.js';
import { LARGE_DOCUMENT_POSTINGS, sealKeywordIndex } from '../src/store/keyword/maintenance.js';
import { positiveInt, readBenchArgs } from './lib/cli.js';
import { listFiles } from './lib/files.js';
import { applyKeywordSchema, insertFiles, type FileRowInput } from './lib/keyword-db.js';
import { markdownTable } from './lib/search-bench.js';
import { loadAverages } from './lib/proc.js';

const { dir, every, rounds, large } = readBenchArgs(
  {
    command: 'npm run bench:seal --',
    about: 'Sealing the keyword index with large documents in parts against whole, on the same texts in one process.',
    positional: { name: 'DIR', description: 'a folder of documents (e.g. /usr/share/doc)' },
    options: {
      every: { type: 'string', value: 'N', default: '3', description: 'take every Nth file (sorted)' },
      rounds: { type: 'string', value: 'N', default: '2', description: 'rounds of both variants, alternated' },
      large: { type: 'string', value: 'N', default: String(LARGE_DOCUMENT_POSTINGS), description: 'distinct words that make a document large (the service: LARGE_DOCUMENT_POSTINGS)' },
    },
  },
  ({ values, positional }) => {
    if (!positional) throw new Error('DIR: none given');
    return { dir: path.resolve(positional), every: positiveInt('every', values.every), rounds: positiveInt('rounds', values.rounds), large: positiveInt('large', values.large) };
  },
);

const BATCH = 256;
const SLICE = 64;

const files = (await listFiles(dir)).sort().filter((_, i) => i % every === 0);
const limits = parseLimits(defaultSettings().indexing);
const rows: FileRowInput[] = [];
for (const file of files) {
  const outcome = await parseFile(file, limits);
  if (!outcome.ok) continue;
  const { doc } = outcome;
  rows.push({ path: file, filename: doc.filename, extension: doc.extension, ...(doc.metadata.title ? { title: doc.metadata.title } : {}), content: doc.text });
}
console.log(`${rows.length} texts of ${files.length} files (every ${every}) in ${dir}; large: more than ${large} distinct words; load ${loadAverages()}`);

interface Sealed {
  cpuMs: number;
  calls: number;
  longestMs: number;
  blocks: number;
}

async function sealRun(largePostings: number): Promise<Sealed> {
  const db = await openPglite(null);
  try {
    await applyKeywordSchema(db);
    const out: Sealed = { cpuMs: 0, calls: 0, longestMs: 0, blocks: 0 };
    for (let at = 0; at < rows.length; at += BATCH) {
      await insertFiles(db, rows.slice(at, at + BATCH));
      for (let remaining = 1; remaining > 0; ) {
        const cpu = process.cpuUsage();
        const started = performance.now();
        ({ remaining } = await sealKeywordIndex(db, SLICE, Infinity, largePostings));
        const used = process.cpuUsage(cpu);
        out.cpuMs += (used.user + used.system) / 1000;
        out.longestMs = Math.max(out.longestMs, performance.now() - started);
        out.calls++;
      }
    }
    out.blocks = (await db.query<{ n: number }>('SELECT count(*)::integer AS n FROM keyword_blocks')).rows[0]?.n ?? 0;
    return out;
  } finally {
    await db.close();
  }
}

const variants = [
  { name: `in parts (${large} words a call)`, large },
  { name: 'whole (before sql/0019)', large: 2 ** 31 - 1 },
];
const table: string[][] = [];
for (let round = 1; round <= rounds; round++) {
  for (const variant of variants) {
    const r = await sealRun(variant.large);
    table.push([String(round), variant.name, (r.cpuMs / Math.max(1, rows.length)).toFixed(2), String(r.calls), r.longestMs.toFixed(0), String(r.blocks), loadAverages()]);
  }
}
console.log(markdownTable(['round', 'large documents sealed', 'sealing CPU ms a file', 'seal calls', 'longest call (ms)', 'blocks before compaction', 'load'], table));
