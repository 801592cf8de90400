/**
 * Dense-only retrieval quality and speed of the built-in static embedder on SciFact (BEIR).
 *
 *   npm run build && node dist/bench/static-embedder-scifact.js [--split test|train] [--chunk-words N]
 *       [--overlap-words N] [--no-title] [--builtin-dir DIR]
 *
 * Each file is chunked and its chunks embedded as an indexing task would (one file at a time; text = the
 * whole file, title = its first line), a document scores its best chunk's cosine with the query (brute force), nDCG@10 over the split's
 * queries. Throughput counts whole documents (tokenise + chunk + embed) on one thread, per
 * second of wall time and per second of the process's CPU time (the machine may be shared).
 */
import { performance } from 'node:perf_hooks';
import { defaultBuiltinDir } from '../src/pipeline/embedders/index.js';
import { StaticEmbedder } from '../src/pipeline/embedders/static.js';
import { choiceOption, nonNegativeInt, positiveInt, readBenchArgs, type BenchCommand, type BenchOptions } from './lib/cli.js';
import { dot, loadDocs, loadQueries, ndcgAt } from './lib/scifact.js';

const CLI = {
  command: 'npm run bench:static-embedder --',
  about: 'Dense-only retrieval quality (nDCG@10) and speed of the built-in static embedder on SciFact.',
  options: {
    split: { type: 'string', value: 'test|train', default: 'test', description: 'query split to score' },
    'chunk-words': { type: 'string', value: 'N', description: "words per chunk (default 96, the embedder's own)" },
    'overlap-words': { type: 'string', value: 'N', description: "words shared by neighbouring chunks (default 12, the embedder's own)" },
    'no-title': { type: 'boolean', description: "embed chunks without the file's first line as their title" },
    'builtin-dir': { type: 'string', value: 'DIR', description: 'static embedder folder (default the built-in one)' },
  },
} satisfies BenchCommand<BenchOptions>;

async function main(): Promise<void> {
  const { split, chunkWords, overlapWords, useTitle, builtinDir } = readBenchArgs(CLI, ({ values }) => ({
    split: choiceOption('split', values.split, ['test', 'train']),
    chunkWords: positiveInt('chunk-words', values['chunk-words'], undefined),
    overlapWords: nonNegativeInt('overlap-words', values['overlap-words'], undefined),
    useTitle: !values['no-title'],
    builtinDir: values['builtin-dir'] ?? defaultBuiltinDir(),
  }));

  let t0 = performance.now();
  const embedder = await StaticEmbedder.load(builtinDir, { chunkWords, overlapWords });
  const loadMs = performance.now() - t0;
  const docs = loadDocs();
  const { queries, qrels } = loadQueries(split);

  // Warm-up, then time tokenise + chunk + embed of every document.
  await embedder.embed(docs.slice(0, 64).map((d) => d.text));
  t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const owners: number[] = [];
  const chunkTexts: string[] = [];
  const chunkVectors: Float32Array[] = [];
  // One document at a time, chunk then embed, as an indexing task does.
  for (const [i, d] of docs.entries()) {
    const texts = embedder.chunk(d.text, useTitle ? d.title : '').map((c) => c.text);
    const vectors = await embedder.embed(texts);
    texts.forEach((t, k) => {
      owners.push(i);
      chunkTexts.push(t);
      chunkVectors.push(vectors[k] as Float32Array);
    });
  }
  const docSeconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const docCpuSeconds = (cpu.user + cpu.system) / 1e6;

  t0 = performance.now();
  const queryVectors = await embedder.embed(queries.map((q) => q.text));
  const querySeconds = (performance.now() - t0) / 1000;

  let total = 0;
  let zeroQueries = 0;
  for (const [qi, q] of queries.entries()) {
    const qv = queryVectors[qi] as Float32Array;
    if (qv.every((x) => x === 0)) zeroQueries++;
    const best = new Float64Array(docs.length).fill(-Infinity);
    chunkVectors.forEach((v, ci) => {
      const owner = owners[ci] as number;
      best[owner] = Math.max(best[owner] as number, dot(qv, v));
    });
    const ranked = Array.from(best.keys())
      .sort((a, b) => (best[b] as number) - (best[a] as number))
      .slice(0, 10)
      .map((i) => (docs[i] as { id: string }).id);
    total += ndcgAt(10, ranked, qrels.get(q.id) ?? new Set());
  }
  await embedder.close();
  console.log(
    JSON.stringify(
      {
        split,
        queries: queries.length,
        docs: docs.length,
        chunks: chunkTexts.length,
        chunkWords: chunkWords ?? 'default',
        title: useTitle,
        ndcgAt10: Number((total / queries.length).toFixed(4)),
        docsPerSecond: Math.round(docs.length / docSeconds),
        // Per second of this process's CPU time: steadier than wall time when other work shares the cores.
        docsPerCpuSecond: Math.round(docs.length / docCpuSeconds),
        queriesPerSecond: Math.round(queries.length / querySeconds),
        loadSeconds: Number((loadMs / 1000).toFixed(2)),
        queriesWithNoKnownWord: zeroQueries,
      },
      null,
      2,
    ),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
