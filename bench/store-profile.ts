/**
 * Where the store thread's CPU per file goes (issue 17). Replays a built index's files (their rows and chunk
 * vectors, read from a kept PGlite data directory) through the real files repository into fresh PGlite
 * databases, one file per saveIndexed as the indexer writes them, each time with one more part of the write path
 * switched off, so that the differences split a file's store CPU per part:
 *   full          every part, as built: keyword triggers, chunk rows (the vector index's tail: no index written
 *                 with them); then the upkeep's packing of those chunks into the vector lists, timed apart
 *   graph         as before sql/0021: an HNSW graph (m 8, ef_construction 32) updated on every chunk insert, the
 *                 same-run baseline of the lists
 *   no-keywords   the keyword triggers off (files_keyword_insert / _update)
 *   no-chunks     no keyword triggers, no chunk rows: the files row and the transaction
 * CPU is this thread's (PGlite runs in it), measured with process.cpuUsage around the writes only.
 *   npm run bench:store -- PGLITE_DIR [--files N] [--whole] [--largest N] [--tail N]
 * --whole writes each text's keyword index in one statement, as before store/keyword/slices.ts.
 * --largest N, instead of the split: the N documents with the most distinct lexemes, whose postings make the longest
 * store calls. The files are written without chunks (their keyword index as the indexer writes it, a long text in
 * slices), then sealed one document at a time; for each of them its distinct lexemes (one tail row, then one
 * posting each), its longest write call (a long text's last call writes all its tail rows), its seal whole in one
 * statement (as before sql/0019; rolled back) and then as upkeep seals it, LARGE_DOCUMENT_POSTINGS words a call. A
 * document's postings are written whole, so the write bounds the longest calls that no slice size can shorten
 * (docs/benchmarks/corpus.md, stop 38); the seal no longer does.
 * --whole applies to it as to the split.
 * --tail N, instead of the split: what the keyword tail costs (docs/benchmarks/corpus.md, stop 42). The files are
 * written without chunks and sealed 256 documents at a time, as upkeep seals a bulk run, in N rounds of variants
 * alternated: as built; the tail's key replaced by a hash or a plain B-tree index on the lexeme; the tail unlogged;
 * its rows inserted in lexeme order; and no tail at all (no tf, no rows, nothing to seal: the bound of keeping it in memory).
 * --whole applies to it too.
 * PGLITE_DIR: e.g. the `--keep` copy of `npm run bench:corpus`. It is copied before it is opened (PGlite writes
 * to the directory it opens).
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPglite, type PgliteDatabase } from '../src/store/engines/pglite.js';
import { loadKeptWrites } from './lib/kept-index.js';
import { openStore, type StoreApi } from '../src/store/store.js';
import type { IndexedFileWrite } from '../src/store/repositories/files.types.js';
import { createFilesRepository, type FilesRepository } from '../src/store/repositories/files.repository.js';
import { KEYWORD_SLICED_FROM_CHARS } from '../src/store/keyword/slices.js';
import { LARGE_DOCUMENT_POSTINGS } from '../src/store/keyword/maintenance.js';
import type { SqlExecutor } from '../src/store/sql.js';
import { nonNegativeInt, readBenchArgs } from './lib/cli.js';
import { markdownTable } from './lib/search-bench.js';
import { cpuMsSince, loadAverages } from './lib/proc.js';

const { dir, files: fileLimit, whole, largest, tail } = readBenchArgs(
  {
    command: 'npm run bench:store --',
    about: "Splits the store thread's CPU per file by part (vector lists, keyword triggers, chunk rows, file row), replaying a kept index.",
    positional: { name: 'PGLITE_DIR', description: 'a PGlite data directory (e.g. bench:corpus --keep); copied first' },
    options: {
      files: { type: 'string', value: 'N', default: '0', description: 'replay only the first N indexed files (0: all)' },
      whole: { type: 'boolean', description: "write each text's keyword index in one statement, as before it was sliced (store/keyword/slices.ts)" },
      largest: {
        type: 'string',
        value: 'N',
        default: '0',
        description: 'instead of the split: the N documents with the most distinct lexemes, their longest write call and their seal alone',
      },
      tail: {
        type: 'string',
        value: 'N',
        default: '0',
        description: "instead of the split: N rounds of the keyword tail's variants (as built, other indexes, no tail), written without chunks and sealed",
      },
    },
  },
  ({ values, positional }) => {
    if (!positional || !existsSync(positional)) throw new Error(`PGLITE_DIR: no such directory: ${positional ?? '(none given)'}`);
    return { dir: positional, files: nonNegativeInt('files', values.files), whole: values.whole === true, largest: nonNegativeInt('largest', values.largest), tail: nonNegativeInt('tail', values.tail) };
  },
);

const scratch = mkdtempSync(join(tmpdir(), 'filesift-store-profile-'));
const sourceDir = join(scratch, 'source');
cpSync(dir, sourceDir, { recursive: true });

async function loadWrites(): Promise<IndexedFileWrite[]> {
  return loadKeptWrites(sourceDir, { limit: fileLimit, chunks: largest === 0 && tail === 0 });
}

type Variant = 'full' | 'graph' | 'no-keywords' | 'no-chunks';

interface Measured {
  variant: Variant;
  writeCpuMs: number;
  /** Wall milliseconds of the slowest store calls (a write, or a slice of one): one holds PGlite's only thread that long. */
  slowestMs: number[];
  /** CPU of packing every vector into the vector lists after the last write, as the upkeep does (full only). */
  packCpuMs: number | null;
}

/** A fresh database under the scratch directory, its store, and the files repository --whole asks for. */
async function openReplay(dataDir: string): Promise<{ db: PgliteDatabase; store: StoreApi; files: FilesRepository }> {
  const db = await openPglite(dataDir);
  const store = await openStore(db);
  return { db, store, files: whole ? createFilesRepository(db, { keywordSlicePieces: 0 }) : store.files };
}

/**
 * One file written as the indexer writes it, each store call timed apart, as the store's thread runs them (a
 * search can run between two calls, not within one): the write, then a long text's keyword slices.
 */
async function writeTimed(files: FilesRepository, search: StoreApi['search'], write: IndexedFileWrite): Promise<{ id: number; calls: number[] }> {
  let t0 = performance.now();
  const id = await files.saveIndexed(write);
  const calls = [performance.now() - t0];
  for (let done = write.text.length <= KEYWORD_SLICED_FROM_CHARS; !done; ) {
    t0 = performance.now();
    done = await search.continueKeywords(id);
    calls.push(performance.now() - t0);
  }
  return { id, calls };
}

async function replay(writes: IndexedFileWrite[], variant: Variant): Promise<Measured> {
  const dataDir = join(scratch, variant);
  const { db, store, files } = await openReplay(dataDir);
  try {
    const dimension = writes.find((w) => w.chunks.length > 0)?.chunks[0]?.embedding.length ?? 0;
    if (variant === 'graph' && dimension > 0) {
      await db.exec(`CREATE INDEX ON chunks USING hnsw ((embedding::vector(${dimension})) vector_cosine_ops) WITH (m = 8, ef_construction = 32) WHERE dim = ${dimension}`);
    }
    if (variant === 'no-keywords' || variant === 'no-chunks') {
      await db.exec('ALTER TABLE files DISABLE TRIGGER files_keyword_insert; ALTER TABLE files DISABLE TRIGGER files_keyword_update');
    }
    const walls: number[] = [];
    const start = process.cpuUsage();
    for (const w of writes) walls.push(...(await writeTimed(files, store.search, variant === 'no-chunks' ? { ...w, chunks: [] } : w)).calls);
    const writeCpuMs = cpuMsSince(start);
    const slowestMs = walls.sort((a, b) => b - a).slice(0, 5);
    let packCpuMs: number | null = null;
    if (variant === 'full' && dimension > 0) {
      const packing = process.cpuUsage();
      while ((await store.search.maintainVectors()).more);
      packCpuMs = cpuMsSince(packing);
    }
    return { variant, writeCpuMs, slowestMs, packCpuMs };
  } finally {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Thrown to undo a transaction. */
const ROLLBACK = new Error('rollback');

interface LargeDocument {
  path: string;
  characters: number;
  /** Distinct lexemes: the document's tail rows, then its postings in blocks. */
  postings: number;
  /** Its longest store call while written (the write, or a slice of a long text's keyword index). */
  writeMs: number;
  /** Sealing it alone into blocks in one statement (the seal before sql/0019), rolled back. */
  wholeSealMs: number;
  /** Sealing it alone as upkeep does: the longest call, and how many (LARGE_DOCUMENT_POSTINGS words a call). */
  sealMs: number;
  sealCalls: number;
}

/** --largest: every file written without chunks, then sealed one document at a time, each timed. */
async function largestDocuments(writes: IndexedFileWrite[]): Promise<LargeDocument[]> {
  const dataDir = join(scratch, 'largest');
  const { db, store, files } = await openReplay(dataDir);
  try {
    const longestWrite = new Map<number, number>();
    for (const w of writes) {
      const { id, calls } = await writeTimed(files, store.search, { ...w, chunks: [] });
      longestWrite.set(id, Math.max(...calls));
    }
    const { rows: docs } = await db.query<{ doc: number; file_id: number; path: string; characters: number; postings: number }>(
      `SELECT d.doc::integer AS doc, d.file_id::integer AS file_id, f.path, length(f.content) AS characters,
              (SELECT count(*)::integer FROM keyword_tail t WHERE t.doc = d.doc) AS postings
       FROM keyword_docs d JOIN files f ON f.id = d.file_id ORDER BY d.doc`,
    );
    const out: LargeDocument[] = [];
    const sealCall = async (tx: SqlExecutor, maxPostings: number): Promise<{ docs: number; ms: number }> => {
      const t0 = performance.now();
      const { rows } = await tx.query<{ n: number }>('SELECT docs_sealed AS n FROM filesift_keyword_seal(1, $1)', [maxPostings]);
      return { docs: rows[0]?.n ?? 0, ms: performance.now() - t0 };
    };
    for (const d of docs) {
      // The seal as it was, whole in one statement, then undone; then as upkeep seals it now.
      let wholeSealMs = 0;
      await db
        .transaction(async (tx) => {
          const whole = await sealCall(tx, 2 ** 31 - 1);
          if (whole.docs !== 1) throw new Error(`sealing document ${d.doc} whole sealed ${whole.docs} documents`);
          wholeSealMs = whole.ms;
          throw ROLLBACK;
        })
        .catch((error: unknown) => {
          if (error !== ROLLBACK) throw error;
        });
      let sealMs = 0;
      let sealCalls = 0;
      for (let done = 0; done === 0; sealCalls++) {
        const call = await sealCall(db, LARGE_DOCUMENT_POSTINGS);
        if (call.docs > 1 || sealCalls > d.postings) throw new Error(`sealing document ${d.doc} alone: ${call.docs} documents after ${sealCalls} calls`);
        done = call.docs;
        sealMs = Math.max(sealMs, call.ms);
      }
      out.push({ path: d.path, characters: d.characters, postings: d.postings, writeMs: longestWrite.get(d.file_id) ?? 0, wholeSealMs, sealMs, sealCalls });
    }
    return out.sort((a, b) => b.postings - a.postings).slice(0, largest);
  } finally {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The split: one replay per variant, each with one more part switched off; the differences per file. */
async function printSplit(writes: IndexedFileWrite[]): Promise<void> {
  const vectors = writes.reduce((n, w) => n + w.chunks.length, 0);
  console.log(`${writes.length} files, ${vectors} chunk vectors (${(vectors / writes.length).toFixed(1)} a file), from ${dir}; keyword index ${whole ? 'in one statement' : 'in slices'}`);
  const results: Measured[] = [];
  for (const variant of ['full', 'graph', 'no-keywords', 'no-chunks'] as const) {
    results.push(await replay(writes, variant));
    const r = results.at(-1)!;
    console.error(`  ${variant}: ${(r.writeCpuMs / writes.length).toFixed(2)} CPU ms/file; slowest calls ${r.slowestMs.map((ms) => ms.toFixed(0)).join(', ')} ms`);
  }
  const per = (ms: number): string => (ms / writes.length).toFixed(2);
  const [full, graph, noKeywords, noChunks] = results as [Measured, Measured, Measured, Measured];
  console.log(
    markdownTable(
      ['part of a file\'s store write', 'CPU ms per file'],
      [
        ['whole write, as built (chunk rows into the vector index\'s tail)', per(full.writeCpuMs)],
        ['packing the tail into the vector lists (the upkeep, after the last file)', per(full.packCpuMs ?? 0)],
        ['an HNSW graph updated per insert instead (graph - full)', per(graph.writeCpuMs - full.writeCpuMs)],
        ['keyword triggers (full - no-keywords)', per(full.writeCpuMs - noKeywords.writeCpuMs)],
        ['chunk rows (no-keywords - no-chunks)', per(noKeywords.writeCpuMs - noChunks.writeCpuMs)],
        ['files row + transaction (no-chunks)', per(noChunks.writeCpuMs)],
        ['slowest single store call, whole write (wall ms)', full.slowestMs[0]?.toFixed(0) ?? '–'],
      ],
    ),
  );
}

/** Marks the variant whose SQL is the database's publish function with its tail rows ordered by lexeme. */
const ORDERED_PUBLISH = '(publish ordered by lexeme)';

/** The database's filesift_keyword_publish, its tail rows inserted in lexeme order. */
async function orderedPublish(db: PgliteDatabase): Promise<string> {
  const { rows } = await db.query<{ def: string }>("SELECT pg_get_functiondef('filesift_keyword_publish'::regproc) AS def");
  const def = rows[0]?.def ?? '';
  const last = 'CROSS JOIN doc;';
  if (!def.includes(last)) throw new Error(`filesift_keyword_publish no longer ends its INSERT with "${last}": update --tail's variant`);
  return def.replace(last, 'CROSS JOIN doc ORDER BY tf.lexeme;');
}

/** The tail's variants (--tail): SQL run on a fresh database before the writes. */
const TAIL_VARIANTS: Record<string, string> = {
  'as built: key (lexeme, doc), B-tree on doc': '',
  'a hash index on lexeme instead of the key':
    'ALTER TABLE keyword_tail DROP CONSTRAINT keyword_tail_pkey; CREATE INDEX ON keyword_tail USING hash (lexeme)',
  'a plain B-tree on lexeme instead of the key':
    'ALTER TABLE keyword_tail DROP CONSTRAINT keyword_tail_pkey; CREATE INDEX ON keyword_tail (lexeme)',
  // No write-ahead log for the tail's rows and their indexes (a crash empties such a table: its rows would have to
  // be published again from the segments at start and before a seal; measured at stops 33, 40 and 49, not kept).
  'the tail unlogged': 'ALTER TABLE keyword_tail SET UNLOGGED',
  // The database's own filesift_keyword_publish, its last INSERT ordered by lexeme (replayTail rewrites it).
  "the tail's rows inserted in lexeme order": ORDERED_PUBLISH,
  // A document of unit lengths and no postings: what a write costs without the tail (not a usable index).
  'no tail at all (no tf, no rows, nothing to seal)': `CREATE OR REPLACE FUNCTION filesift_keyword_publish(file bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO keyword_docs (file_id, len_a, len_b, len_c, len_d) VALUES (file, 1, 1, 1, 1);
END
$$`,
};
const TAIL_SEAL_EVERY = 256;

/** One --tail variant: the writes (without chunks) and a seal of every TAIL_SEAL_EVERY documents, CPU ms a file. */
async function replayTail(writes: IndexedFileWrite[], sql: string): Promise<{ perFile: number; sealPerFile: number }> {
  const dataDir = join(scratch, 'tail');
  const { db, store, files } = await openReplay(dataDir);
  try {
    if (sql) await db.exec(sql === ORDERED_PUBLISH ? await orderedPublish(db) : sql);
    let sealMs = 0;
    const start = process.cpuUsage();
    for (let i = 0; i < writes.length; i++) {
      await writeTimed(files, store.search, writes[i]!);
      if ((i + 1) % TAIL_SEAL_EVERY === 0 || i === writes.length - 1) {
        const sealStart = process.cpuUsage();
        await store.search.sealKeywords(TAIL_SEAL_EVERY);
        sealMs += cpuMsSince(sealStart);
      }
    }
    return { perFile: cpuMsSince(start) / writes.length, sealPerFile: sealMs / writes.length };
  } finally {
    await db.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function printTail(writes: IndexedFileWrite[], rounds: number): Promise<void> {
  console.log(`${writes.length} files from ${dir}, written without chunks, sealed ${TAIL_SEAL_EVERY} documents at a time; ${rounds} rounds; load ${loadAverages()}`);
  const names = Object.keys(TAIL_VARIANTS);
  const measured = new Map<string, { perFile: number; sealPerFile: number }[]>(names.map((name) => [name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const name of names) {
      const m = await replayTail(writes, TAIL_VARIANTS[name]!);
      measured.get(name)!.push(m);
      console.error(`  round ${round}, ${name}: ${m.perFile.toFixed(2)} CPU ms/file (sealing ${m.sealPerFile.toFixed(2)})`);
    }
  }
  console.log(
    markdownTable(
      ['variant', ...Array.from({ length: rounds }, (_, i) => `round ${i + 1}: CPU ms a file (of it sealing)`)],
      names.map((name) => [name, ...measured.get(name)!.map((m) => `${m.perFile.toFixed(2)} (${m.sealPerFile.toFixed(2)})`)]),
    ),
  );
  console.log(`load at the end ${loadAverages()}`);
}

async function printLargest(writes: IndexedFileWrite[]): Promise<void> {
  console.log(`${writes.length} files from ${dir}, written without chunks, then sealed one document at a time; load ${loadAverages()}`);
  const rows = await largestDocuments(writes);
  console.log(
    markdownTable(
      ['document', 'characters', 'distinct lexemes', 'longest write call (ms)', 'its seal whole, one statement (ms)', 'seal µs a posting', `sealed ${LARGE_DOCUMENT_POSTINGS} words a call: calls`, 'longest call (ms)'],
      rows.map((d) => [
        d.path,
        String(d.characters),
        String(d.postings),
        d.writeMs.toFixed(0),
        d.wholeSealMs.toFixed(0),
        ((d.wholeSealMs * 1000) / Math.max(1, d.postings)).toFixed(1),
        String(d.sealCalls),
        d.sealMs.toFixed(0),
      ]),
    ),
  );
  console.log(`load at the end ${loadAverages()}`);
}

try {
  const writes = await loadWrites();
  if (tail > 0) await printTail(writes, tail);
  else if (largest > 0) await printLargest(writes);
  else await printSplit(writes);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
