/**
 * Known-item search in long documents (issue 17): what fewer chunk vectors per document cost in relevance, and
 * what they save on the store's thread. SciFact's abstracts fit in 2-3 chunks and cannot see it.
 *
 * Replays a kept index (its files rows and stored text, e.g. `npm run bench:corpus -- DIR --keep DATA_DIR`) once
 * per chunking variant: every text is chunked and embedded again with the built-in embedder, written through the
 * real files repository into a fresh PGlite index (keyword index maintained per file, as the indexer writes; the
 * vector index's tail packed into its lists afterwards), and the index is then served by the real service and
 * asked through POST /api/search/.
 *
 * Queries: from documents of at least --min-chunks chunks (at the unbounded 96-word chunking), seeded picks of a
 * span of --span consecutive words beyond the first two chunks, whitespace collapsed. A query's known items are
 * every file whose text holds that span (copies of a manual count). Scored: recall@10 (a known item in the top
 * 10) and MRR@10, semantic and hybrid, and semantic recall@10 of the queries whose span starts beyond chunk K
 * (where a cap keeps no vector).
 *
 * Variants (K from --max-chunks, a list):
 *   all        one vector per 96-word chunk, however long the text (the unbounded chunking)
 *   first-K    the first K of those chunks only (the tail of a long text has no vector)
 *   pool-K     those chunks' vectors averaged in runs of ceil(n / K) adjacent ones (every chunk embedded)
 *   wide-K     windows widened per document so it gets at most K (StaticEmbedder maxChunks: the default)
 *   npm run bench:longdocs -- PGLITE_DIR [--queries 300] [--max-chunks 16,32] [--variants all,first,pool,wide]
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPglite } from '../src/store/engines/pglite.js';
import { openStore } from '../src/store/store.js';
import { pgliteDir } from '../src/store/spawn.js';
import type { IndexedFileWrite } from '../src/store/repositories/files.types.js';
import { defaultBuiltinDir } from '../src/pipeline/embedders/index.js';
import { StaticEmbedder } from '../src/pipeline/embedders/static.js';
import { embedText } from '../src/pipeline/task.js';
import type { EmbeddedChunk } from '../src/pipeline/types.js';
import { search, startBenchService } from './lib/bench-service.js';
import { listOption, nonNegativeInt, positiveInt, positiveIntList, readBenchArgs } from './lib/cli.js';
import { loadKeptWrites } from './lib/kept-index.js';
import { markdownTable } from './lib/search-bench.js';
import { seededRandom } from './lib/synthetic.js';
import { cpuMsSince } from './lib/proc.js';

const VARIANT_KINDS = ['all', 'first', 'pool', 'wide'] as const;

const args = readBenchArgs(
  {
    command: 'npm run bench:longdocs --',
    about: 'Known-item recall in long documents and store CPU per chunking variant, replaying a kept index.',
    positional: { name: 'PGLITE_DIR', description: 'a PGlite data directory (e.g. bench:corpus --keep); copied first' },
    options: {
      queries: { type: 'string', value: 'N', default: '300', description: 'known-item queries' },
      span: { type: 'string', value: 'N', default: '12', description: 'words per query' },
      'min-chunks': { type: 'string', value: 'N', default: '8', description: 'a document queried has at least N chunks (unbounded)' },
      'max-chunks': { type: 'string', value: 'K,..', default: '16,32', description: 'the K of the bounded variants' },
      variants: { type: 'string', value: 'LIST', default: VARIANT_KINDS.join(','), description: 'variants to measure' },
      seed: { type: 'string', value: 'N', default: '17', description: 'sampling seed' },
      files: { type: 'string', value: 'N', default: '0', description: 'replay only the first N indexed files (0: all)' },
    },
  },
  ({ values, positional }) => {
    if (!positional) throw new Error('PGLITE_DIR: none given');
    return {
      dir: positional,
      queries: positiveInt('queries', values.queries),
      span: positiveInt('span', values.span),
      minChunks: positiveInt('min-chunks', values['min-chunks']),
      maxChunks: positiveIntList('max-chunks', values['max-chunks']),
      kinds: listOption('variants', values.variants, VARIANT_KINDS),
      seed: nonNegativeInt('seed', values.seed),
      files: nonNegativeInt('files', values.files),
    };
  },
);

const LIMIT = 10;
const scratch = mkdtempSync(join(tmpdir(), 'filesift-longdocs-'));

interface Query {
  text: string;
  /** Indexes (in `writes`) of the files whose text holds the span. */
  known: Set<string>;
  /** The unbounded chunk the span starts in. */
  chunk: number;
}

const collapse = (s: string): string => s.replace(/\s+/g, ' ');

/** Seeded known-item queries from the long documents' text beyond their first two chunks. */
function sampleQueries(writes: IndexedFileWrite[], unbounded: EmbeddedChunk[][], embedder: StaticEmbedder): Query[] {
  const random = seededRandom(args.seed);
  const long = writes.map((_, i) => i).filter((i) => unbounded[i]!.length >= args.minChunks);
  const collapsed = writes.map((w) => collapse(w.text));
  const queries: Query[] = [];
  const seen = new Set<string>();
  for (let attempt = 0; queries.length < args.queries && attempt < args.queries * 20; attempt++) {
    const doc = long[Math.floor(random() * long.length)]!;
    const text = writes[doc]!.text;
    const chunks = unbounded[doc]!;
    const words = embedder.tokenizer.words(text);
    const from = words.findIndex((w) => w.start >= chunks[2]!.start);
    const room = words.length - args.span - from;
    if (from < 0 || room <= 0) continue;
    const first = from + Math.floor(random() * room);
    const span = words.slice(first, first + args.span);
    // A span of mostly unknown words (numbers, code, another script) is no query a person would type.
    if (span.filter((w) => w.ids.length > 0 && w.end - w.start > 2).length < args.span * 0.6) continue;
    const q = collapse(text.slice(span[0]!.start, span.at(-1)!.end));
    if (seen.has(q)) continue;
    seen.add(q);
    const known = new Set<string>();
    collapsed.forEach((t, i) => t.includes(q) && known.add(writes[i]!.facts.path));
    const chunk = chunks.findLastIndex((c) => c.start <= span[0]!.start);
    queries.push({ text: q, known, chunk });
  }
  return queries;
}

/** Runs of ceil(n / k) adjacent chunks averaged into one (L2-normalised) vector. */
function pool(chunks: EmbeddedChunk[], k: number): EmbeddedChunk[] {
  if (chunks.length <= k) return chunks;
  const run = Math.ceil(chunks.length / k);
  const out: EmbeddedChunk[] = [];
  for (let i = 0; i < chunks.length; i += run) {
    const group = chunks.slice(i, i + run);
    const sum = new Float32Array(group[0]!.embedding.length);
    for (const c of group) c.embedding.forEach((v, d) => (sum[d]! += v));
    const norm = Math.hypot(...sum) || 1;
    out.push({ index: out.length, text: '', start: group[0]!.start, end: group.at(-1)!.end, embedding: sum.map((v) => v / norm) });
  }
  return out;
}

interface Measured {
  name: string;
  vectors: number;
  maxVectors: number;
  embedCpuMs: number;
  writeCpuMs: number;
  semantic: { recall: number; mrr: number; deepRecall: number };
  hybrid: { recall: number; mrr: number };
}

async function measure(name: string, writes: IndexedFileWrite[], chunksOf: EmbeddedChunk[][], embedCpuMs: number, queries: Query[], deepFrom: number): Promise<Measured> {
  const dataDir = join(scratch, name);
  const db = await openPglite(pgliteDir(dataDir));
  const start = process.cpuUsage();
  try {
    const store = await openStore(db);
    for (let i = 0; i < writes.length; i++) {
      await store.files.saveIndexed({ ...writes[i]!, chunks: chunksOf[i]!.map((c) => ({ index: c.index, start: c.start, end: c.end, text: '', embedding: c.embedding })) });
    }
    // The vector index's tail packed into its lists, as the upkeep does after a run (its CPU counted with the writes).
    while ((await store.search.maintainVectors()).more);
  } finally {
    await db.close();
  }
  const writeCpuMs = cpuMsSince(start);
  const bench = await startBenchService({ dataDir });
  const score = async (mode: 'semantic' | 'hybrid', only: (q: Query) => boolean = () => true) => {
    let found = 0;
    let rr = 0;
    let n = 0;
    for (const q of queries.filter(only)) {
      const answer = await search(bench, { query: q.text, limit: LIMIT, mode });
      const rank = answer.results.findIndex((r) => q.known.has(r.file.file_path));
      n++;
      if (rank >= 0) (found++, (rr += 1 / (rank + 1)));
    }
    return { recall: n === 0 ? NaN : found / n, mrr: n === 0 ? NaN : rr / n };
  };
  try {
    const semantic = await score('semantic');
    const deep = await score('semantic', (q) => q.chunk >= deepFrom);
    const hybrid = await score('hybrid');
    const vectors = chunksOf.reduce((n, c) => n + c.length, 0);
    return {
      name,
      vectors,
      maxVectors: Math.max(...chunksOf.map((c) => c.length)),
      embedCpuMs,
      writeCpuMs,
      semantic: { ...semantic, deepRecall: deep.recall },
      hybrid,
    };
  } finally {
    await bench.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function embedAll(writes: IndexedFileWrite[], embedder: StaticEmbedder): Promise<{ chunksOf: EmbeddedChunk[][]; cpu: number }> {
  const start = process.cpuUsage();
  const chunksOf: EmbeddedChunk[][] = [];
  for (const w of writes) chunksOf.push((await embedText(w.text, w.analysis.title, embedder)).chunks);
  return { chunksOf, cpu: cpuMsSince(start) };
}

try {
  const source = join(scratch, 'source');
  cpSync(args.dir, source, { recursive: true });
  const writes = (await loadKeptWrites(source, { limit: args.files, chunks: false })).filter((w) => w.embeddingModel.startsWith('static:'));
  const unboundedEmbedder = await StaticEmbedder.load(defaultBuiltinDir(), { maxChunks: 0 });
  const model = `static:${unboundedEmbedder.info.model}`;
  const unbounded = await embedAll(writes, unboundedEmbedder);
  const queries = sampleQueries(writes, unbounded.chunksOf, unboundedEmbedder);
  const deepFrom = Math.max(...args.maxChunks);
  const longDocs = unbounded.chunksOf.filter((c) => c.length >= args.minChunks).length;
  console.log(
    `${writes.length} files (${longDocs} of at least ${args.minChunks} chunks), ${queries.length} queries of ${args.span} words ` +
      `(${queries.filter((q) => q.chunk >= deepFrom).length} beyond chunk ${deepFrom}), seed ${args.seed}, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
  );
  const rewrites = writes.map((w) => ({ ...w, embeddingModel: model }));
  const results: Measured[] = [];
  const run = async (name: string, chunksOf: EmbeddedChunk[][], cpu: number) => {
    results.push(await measure(name, rewrites, chunksOf, cpu, queries, deepFrom));
    const r = results.at(-1)!;
    console.error(`  ${name}: ${(r.writeCpuMs / writes.length).toFixed(2)} store CPU ms/file, semantic R@10 ${r.semantic.recall.toFixed(3)}`);
  };
  if (args.kinds.includes('all')) await run('all', unbounded.chunksOf, unbounded.cpu);
  for (const k of args.maxChunks) {
    if (args.kinds.includes('first')) await run(`first-${k}`, unbounded.chunksOf.map((c) => c.slice(0, k)), unbounded.cpu);
    if (args.kinds.includes('pool')) await run(`pool-${k}`, unbounded.chunksOf.map((c) => pool(c, k)), unbounded.cpu);
    if (args.kinds.includes('wide')) {
      const embedder = await StaticEmbedder.load(defaultBuiltinDir(), { maxChunks: k });
      const wide = await embedAll(writes, embedder);
      await embedder.close();
      await run(`wide-${k}`, wide.chunksOf, wide.cpu);
    }
  }
  await unboundedEmbedder.close();
  const per = (ms: number): string => (ms / writes.length).toFixed(2);
  const f = (x: number): string => x.toFixed(3);
  console.log(`\nload after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
  console.log(
    markdownTable(
      ['variant', 'vectors', 'a file (max)', 'embed CPU ms/file', 'store CPU ms/file', 'semantic R@10', 'semantic MRR', `semantic R@10 beyond chunk ${deepFrom}`, 'hybrid R@10', 'hybrid MRR'],
      results.map((r) => [
        r.name,
        String(r.vectors),
        `${(r.vectors / writes.length).toFixed(1)} (${r.maxVectors})`,
        per(r.embedCpuMs),
        per(r.writeCpuMs),
        f(r.semantic.recall),
        f(r.semantic.mrr),
        f(r.semantic.deepRecall),
        f(r.hybrid.recall),
        f(r.hybrid.mrr),
      ]),
    ),
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
