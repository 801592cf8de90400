/**
 * Embeddings per second of the embedders on one thread (onnxruntime's for the transformer), for ~130- and ~256-token passages.
 *
 *   npm run build && node dist/bench/embedder-throughput.js [--passages N] [--threads N] [--batch N]
 *
 * Passages are SciFact abstracts cut at a word to 130 or 256 WordPiece tokens ([CLS]/[SEP] included). The
 * transformer runs a generated graph of exactly all-MiniLM-L6-v2's shape (6 layers, hidden 384, 12 heads,
 * intermediate 1536, vocabulary 30522) with random weights, which cost the same compute as trained ones, in
 * fp32 and int8 (dynamic quantisation, as Xenova's model_quantized.onnx). Rates are given per second of wall
 * time and per second of this process's CPU time (steadier when other work shares the machine's cores).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { defaultBuiltinDir } from '../src/pipeline/embedders/index.js';
import { StaticEmbedder } from '../src/pipeline/embedders/static.js';
import { TransformerEmbedder } from '../src/pipeline/embedders/transformer.js';
import type { Embedder } from '../src/pipeline/embedders/types.js';
import { WordPieceTokenizer } from '../src/pipeline/embedders/wordpiece.js';
import { MINILM_L6, writeBertModelDir } from '../scripts/lib/bert-graph.js';
import { sharedPath } from '../test/helpers/shared.js';
import { positiveInt, readBenchArgs } from './lib/cli.js';


/** SciFact abstracts cut to `tokens` WordPiece tokens including [CLS] and [SEP]. */
function passages(tokenizer: WordPieceTokenizer, tokens: number, count: number): string[] {
  const lines = readFileSync(sharedPath('datasets', 'scifact', 'corpus.jsonl'), 'utf8').split('\n');
  const out: string[] = [];
  for (const line of lines) {
    if (out.length === count) break;
    if (line.trim() === '') continue;
    const { text } = JSON.parse(line) as { text: string };
    let used = 2;
    let end = -1;
    for (const w of tokenizer.words(text)) {
      if (used + w.ids.length > tokens) break;
      used += w.ids.length;
      end = w.end;
    }
    if (used >= tokens - 3) out.push(text.slice(0, end)); // only abstracts long enough to fill the passage
  }
  if (out.length < count) throw new Error(`only ${out.length} SciFact abstracts reach ${tokens} tokens`);
  return out;
}

interface Rate {
  perSecond: number;
  perCpuSecond: number;
}

async function measure(embedder: Embedder, texts: string[]): Promise<Rate> {
  await embedder.embed(texts.slice(0, Math.min(8, texts.length))); // warm-up
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await embedder.embed(texts);
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  return {
    perSecond: Math.round((texts.length / wall) * 10) / 10,
    perCpuSecond: Math.round((texts.length / ((cpu.user + cpu.system) / 1e6)) * 10) / 10,
  };
}

async function main(): Promise<void> {
  const { count, threads, batchSize } = readBenchArgs(
    {
      command: 'npm run bench:embedder-throughput --',
      about: 'Embeddings per second of the static and MiniLM-shaped (fp32, int8) embedders, ~130- and ~256-token passages.',
      options: {
        passages: { type: 'string', value: 'N', default: '96', description: 'SciFact passages of each length; the static embedder gets 40x as many' },
        threads: { type: 'string', value: 'N', default: '1', description: "the transformer's onnxruntime intra-op threads" },
        batch: { type: 'string', value: 'N', default: '8', description: "the transformer's batch size" },
      },
    },
    ({ values }) => ({
      count: positiveInt('passages', values.passages),
      threads: positiveInt('threads', values.threads),
      batchSize: positiveInt('batch', values.batch),
    }),
  );
  const vocab = sharedPath('models', 'all-MiniLM-L6-v2-tokenizer', 'vocab.txt');
  const tokenizer = WordPieceTokenizer.fromVocabFile(vocab);
  const sets = { 130: passages(tokenizer, 130, count), 256: passages(tokenizer, 256, count) };
  const rows: Record<string, string | number>[] = [];
  const record = async (name: string, embedder: Embedder, n: number): Promise<void> => {
    for (const [tokens, texts] of Object.entries(sets)) {
      const rate = await measure(embedder, texts.slice(0, n));
      rows.push({ embedder: name, tokens: Number(tokens), passages: n, threads, batchSize, ...rate });
      console.error(JSON.stringify(rows[rows.length - 1]));
    }
  };

  const builtin = await StaticEmbedder.load(defaultBuiltinDir());
  // The static embedder is ~100x faster: give it more passages for a measurable run.
  const many = (t: string[]): string[] => Array.from({ length: 40 }, () => t).flat();
  for (const [tokens, texts] of Object.entries(sets)) {
    const rate = await measure(builtin, many(texts));
    rows.push({ embedder: 'static', tokens: Number(tokens), passages: texts.length * 40, threads: 1, batchSize: '-', ...rate }); // plain TypeScript, one text at a time
    console.error(JSON.stringify(rows[rows.length - 1]));
  }
  await builtin.close();

  const tmp = mkdtempSync(path.join(os.tmpdir(), 'filesift-throughput-'));
  try {
    for (const quantized of [false, true]) {
      const dir = writeBertModelDir(path.join(tmp, quantized ? 'int8' : 'fp32'), { ...MINILM_L6, quantized }, vocab);
      const embedder = await TransformerEmbedder.load(dir, { intraOpThreads: threads, batchSize });
      await record(`minilm-shape-${quantized ? 'int8' : 'fp32'}`, embedder, count);
      await embedder.close();
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  console.table(rows);
  console.log(`load average (1 min) during the run: ${os.loadavg()[0]?.toFixed(2)} on ${os.cpus().length} cores`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
