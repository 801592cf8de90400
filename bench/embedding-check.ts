/**
 * Proof that a transformer model's embeddings are right: semantic-only nDCG@10 on SciFact test, computed the way
 * the published figures are (MTEB / BEIR's dense exact search), compared with the figure of the model's card:
 *
 *   npm run bench:embeddings -- --model-dir DIR [--threads N] [--cache FILE]
 *
 * Each document is `title + " " + text`, one window truncated at the model's max_seq_length (256 MiniLM, 512 bge);
 * each query goes through embedQuery (bge: with its retrieval instruction); scores are exact cosines over the
 * whole corpus. This isolates the model (tokenizer, pooling, instruction, normalisation) from filesift's
 * chunking and fusion, whose figures `npm run bench:quality` reports.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { readModelConfig } from '../src/pipeline/embedders/model-config.js';
import { TransformerEmbedder } from '../src/pipeline/embedders/transformer.js';
import { positiveInt, readBenchArgs } from './lib/cli.js';
import { evaluateRuns } from './lib/metrics.js';
import { dot, loadQueries } from './lib/scifact.js';
import { sharedPath } from '../test/helpers/shared.js';

/** Published SciFact test nDCG@10 (MTEB), with where it is stated. */
const PUBLISHED: Record<string, { ndcg: number; source: string }> = {
  'all-MiniLM-L6-v2': { ndcg: 0.6451, source: 'MTEB (the dataset README: all-MiniLM-L6-v2 0.6451 / R@100 0.925)' },
  'bge-small-en-v1.5': { ndcg: 0.71275, source: 'the model card, https://huggingface.co/BAAI/bge-small-en-v1.5 (MTEB SciFact ndcg_at_10 71.275)' },
};
const TOLERANCE = 0.01;

const args = readBenchArgs(
  {
    command: 'npm run bench:embeddings --',
    about: "A transformer model's SciFact test nDCG@10 the published way, against its published figure (±0.01).",
    options: {
      'model-dir': { type: 'string', value: 'DIR', description: 'the model folder (e.g. from scripts/fetch-models.sh)' },
      threads: { type: 'string', value: 'N', description: 'onnxruntime threads (default: the cores)' },
      cache: { type: 'string', value: 'FILE', description: "keep the documents' vectors in FILE (outside the repo); a re-run reads them instead of embedding" },
    },
  },
  ({ values }) => ({ modelDir: values['model-dir'], threads: positiveInt('threads', values.threads, cpus().length), cache: values.cache }),
);

/** Embeds every document in batches of 64, printing the wall and CPU time it took. */
async function embedCorpus(embedder: TransformerEmbedder, corpus: readonly { title: string; text: string }[]): Promise<Float32Array[]> {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const vectors: Float32Array[] = [];
  for (let i = 0; i < corpus.length; i += 64) {
    vectors.push(...(await embedder.embed(corpus.slice(i, i + 64).map((d) => `${d.title} ${d.text}`))));
  }
  const cpu = process.cpuUsage(cpu0);
  console.log(`embedded in ${((performance.now() - t0) / 1000).toFixed(0)} s (${((cpu.user + cpu.system) / 1e6).toFixed(0)} CPU s)`);
  return vectors;
}

/** The vectors a previous run kept (the same model folder: the cache file is the caller's to name). */
function readVectors(file: string, count: number): Float32Array[] {
  const all = new Float32Array(new Uint8Array(readFileSync(file)).buffer);
  const dimension = all.length / count;
  if (!Number.isInteger(dimension)) throw new Error(`${file} does not hold ${count} vectors: delete it to embed again`);
  console.log(`vectors read from ${file} (${count} × ${dimension})`);
  return Array.from({ length: count }, (_, i) => all.subarray(i * dimension, (i + 1) * dimension));
}

async function main(): Promise<void> {
  if (!args.modelDir) {
    console.error('bench:embeddings needs --model-dir DIR: a model folder, e.g. <cache>/all-MiniLM-L6-v2-int8 from scripts/fetch-models.sh');
    process.exitCode = 2;
    return;
  }
  const config = readModelConfig(args.modelDir);
  const embedder = await TransformerEmbedder.load(args.modelDir, { intraOpThreads: args.threads, batchSize: 16 });
  const corpus = readFileSync(sharedPath('datasets', 'scifact', 'corpus.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { _id: string; title: string; text: string });
  console.log(`${config.name} (${config.variant ?? 'unknown variant'}, ${config.pooling} pooling, window ${config.maxTokens ?? 256} tokens, ` +
    `query instruction ${config.queryPrefix ? `'${config.queryPrefix}'` : 'none'}): ${corpus.length} documents; ` +
    `load average ${loadavg().map((x) => x.toFixed(1)).join(' ')} on ${cpus().length} cores`);
  const vectors = args.cache && existsSync(args.cache) ? readVectors(args.cache, corpus.length) : await embedCorpus(embedder, corpus);
  if (args.cache && !existsSync(args.cache)) writeFileSync(args.cache, Buffer.concat(vectors.map((v) => Buffer.from(v.buffer, v.byteOffset, v.byteLength))));

  const split = loadQueries('test');
  const runs = new Map<string, string[]>();
  for (const q of split.queries) {
    const v = await embedder.embedQuery(q.text);
    const scored = vectors.map((d, i) => [i, dot(d, v)] as const).sort((a, b) => b[1] - a[1]);
    runs.set(q.id, scored.slice(0, 100).map(([i]) => corpus[i]!._id));
  }
  await embedder.close();
  const s = evaluateRuns(runs, split.qrels);
  const published = PUBLISHED[config.name];
  const verdict = published
    ? `published ${published.ndcg.toFixed(4)} (${published.source}): ${s.ndcgAt10 - published.ndcg >= 0 ? '+' : '−'}${Math.abs(s.ndcgAt10 - published.ndcg).toFixed(4)}, ` +
      `${Math.abs(s.ndcgAt10 - published.ndcg) <= TOLERANCE ? 'within' : 'NOT within'} ±${TOLERANCE}`
    : 'no published figure known for this model';
  console.log(`SciFact test, ${split.queries.length} queries: nDCG@10 ${s.ndcgAt10.toFixed(4)}, R@100 ${s.recallAt100.toFixed(4)}; ${verdict}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
