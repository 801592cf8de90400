/**
 * A long text's keyword postings written in parts (sql/0020: LARGE_DOCUMENT_POSTINGS words a call) against in one
 * statement (the bound lifted: the write before sql/0020), in one process, the rounds alternated: for each file,
 * its distinct words, the calls that wrote its postings, the longest and their sum.
 *
 *   npm run bench:publish -- FILE [FILE...] [--rounds N]
 *
 * Each file is parsed as the pipeline parses it (the service's default limits) and written through the files
 * repository into a fresh PGlite database, its text's pieces as the indexer writes them; then the continue calls
 * are timed (only those after the last piece: the postings).
 */
import path from 'node:path';
import { parseLimits } from '../src/indexing/indexer.js';
import { indexedFileWrite } from '../src/indexing/indexed-write.js';
import { parseFile } from '../src/pipeline/stages/parse.js';
import { defaultSettings } from '../src/settings/schema.js';
import { openPglite } from '../src/store/engines/pglite.js';
import { LARGE_DOCUMENT_POSTINGS } from '../src/store/keyword/maintenance.js';
import { KEYWORD_SLICE_PIECES } from '../src/store/keyword/slices.js';
import { createFilesRepository } from '../src/store/repositories/files.repository.js';
import type { IndexedFileWrite } from '../src/store/repositories/files.types.js';
import { parseCommandLine, usage } from '../src/lib/command-line.js';
import { applyKeywordSchema } from './lib/keyword-db.js';
import { markdownTable } from './lib/search-bench.js';
import { positiveInt } from './lib/cli.js';
import { loadAverages } from './lib/proc.js';

const cli = {
  command: 'npm run bench:publish --',
  about: "A long text's keyword postings written in parts against in one statement, on the same files in one process.",
  positional: { name: 'FILE', description: 'documents with large vocabularies (e.g. /usr/share/doc/libboost-regex*/copyright)', variadic: true },
  options: { rounds: { type: 'string', value: 'N', default: '2', description: 'rounds of both variants, alternated' } },
} as const;
const { values, positionals, help } = parseCommandLine(cli, process.argv.slice(2));
if (help || positionals.length === 0) {
  (help ? console.log : console.error)(usage(cli));
  process.exit(help ? 0 : 2);
}
const rounds = positiveInt('rounds', values.rounds);

const limits = parseLimits(defaultSettings().indexing);
const writes: { name: string; write: IndexedFileWrite }[] = [];
for (const file of positionals.map((f) => path.resolve(f))) {
  const outcome = await parseFile(file, limits);
  if (!outcome.ok) throw new Error(`${file}: ${outcome.reason}`);
  const { doc } = outcome;
  writes.push({
    name: file,
    write: indexedFileWrite(doc, {
      mtimeMs: 0,
      jobId: null,
      analysis: { title: doc.metadata.title ?? doc.filename, summary: '', keywords: [], provider: 'local' },
      embeddingModel: '',
      chunks: [],
    }),
  });
}
console.log(`${writes.length} files; parts of ${LARGE_DOCUMENT_POSTINGS} words; load ${loadAverages()}`);

async function publish(write: IndexedFileWrite, maxPostings: number): Promise<{ words: number; calls: number[] }> {
  const db = await openPglite(null);
  try {
    await applyKeywordSchema(db);
    const files = createFilesRepository(db, { keywordSlicePieces: KEYWORD_SLICE_PIECES });
    const id = await files.saveIndexed(write);
    const calls: number[] = [];
    for (let done = false; !done; ) {
      const publishing = (await db.query<{ p: boolean }>('SELECT next_byte IS NULL AS p FROM keyword_pending WHERE file_id = $1', [id])).rows[0]?.p ?? false;
      const started = performance.now();
      done = (await db.query<{ done: boolean }>('SELECT filesift_keyword_continue($1, $2, $3) AS done', [id, KEYWORD_SLICE_PIECES, maxPostings])).rows[0]?.done ?? true;
      if (publishing) calls.push(performance.now() - started);
    }
    const words = (await db.query<{ n: number }>('SELECT lexemes AS n FROM keyword_docs WHERE file_id = $1', [id])).rows[0]?.n ?? 0;
    return { words, calls };
  } finally {
    await db.close();
  }
}

const table: string[][] = [];
for (let round = 1; round <= rounds; round++) {
  for (const { name, write } of writes) {
    for (const [variant, bound] of [[`${LARGE_DOCUMENT_POSTINGS} a call`, LARGE_DOCUMENT_POSTINGS], ['whole, one call (as before sql/0020)', 2 ** 31 - 1]] as const) {
      const { words, calls } = await publish(write, bound);
      const sum = calls.reduce((a, b) => a + b, 0);
      table.push([String(round), path.basename(name), String(words), variant, String(calls.length), Math.max(0, ...calls).toFixed(0), sum.toFixed(0), loadAverages()]);
    }
  }
}
console.log(markdownTable(['round', 'file', 'distinct words', 'postings written', 'calls', 'longest (ms)', 'sum (ms)', 'load'], table));
