/**
 * Sentence-transformers style embedder: a BERT-family ONNX model (all-MiniLM-L6-v2, bge-small-en-v1.5, or another
 * compatible folder) with its WordPiece tokenizer (tokenizer.json, or vocab.txt). Texts are cut into windows of at
 * most the model's max_seq_length tokens (256 for MiniLM, 512 for bge) with overlap, the title prepended to each;
 * an embedding is the model's pooling of `last_hidden_state` (the mask-weighted mean, or the [CLS] vector),
 * L2-normalised, computed in batches padded only to the longest text of the batch. Search queries get the
 * model's query instruction (bge's), documents never do.
 */
import path from 'node:path';
import type { Chunk } from '../types.js';
import type { Pooling } from './known-models.js';
import { missingTransformerFiles, readModelConfig, TRANSFORMER_FILES, type ModelConfig } from './model-config.js';
import type { Embedder, EmbedderInfo } from './types.js';
import { openSession, type OnnxSession } from './onnx-session.js';
import { windows } from './windows.js';
import { WordPieceTokenizer, type TokenizedWord } from './wordpiece.js';

export interface TransformerOptions {
  /** onnxruntime intra-op threads (default 1: the pool gives each worker one core). */
  intraOpThreads?: number;
  /**
   * Longest window in tokens, [CLS] and [SEP] included (default the model's max_seq_length, else 256; capped by its
   * positions).
   */
  maxTokens?: number;
  /** Tokens shared by consecutive windows of a document (default 32). */
  overlapTokens?: number;
  /** Most title tokens prepended to each window (default 32); a longer title is cut at a word. */
  maxTitleTokens?: number;
  /**
   * Texts per onnxruntime call (default 8). On one CPU thread batching gains little (bench/embedder-throughput:
   * batch 1, 4 and 16 within noise of each other); it mainly amortises per-call overhead.
   */
  batchSize?: number;
}

/** The folder's tokenizer: from tokenizer.json when it has one, else from vocab.txt. */
export function loadModelTokenizer(dir: string, config: ModelConfig = readModelConfig(dir)): WordPieceTokenizer {
  const file = path.join(dir, config.tokenizerFile);
  return config.tokenizerFile === TRANSFORMER_FILES.tokenizer
    ? WordPieceTokenizer.fromTokenizerJson(file)
    : WordPieceTokenizer.fromVocabFile(file, config.tokenizer);
}

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1) throw new Error(`options.${name} must be a positive integer (got ${String(v)})`);
  return v;
}

export class TransformerEmbedder implements Embedder {
  private readonly maxTokens: number;
  private readonly overlap: number;
  private readonly maxTitleTokens: number;
  private readonly batchSize: number;
  /**
   * Token ids of the latest chunk() result by chunk text (one document's worth), so the embed() call that
   * follows does not tokenise the same text a second time (windows break between words, so a window's ids are
   * exactly its words' ids).
   */
  private readonly lastChunkIds = new Map<string, number[]>();

  private constructor(
    readonly info: EmbedderInfo,
    private readonly tokenizer: WordPieceTokenizer,
    private readonly session: OnnxSession,
    private readonly outputName: string,
    private readonly pooling: Pooling,
    private readonly queryPrefix: string,
    options: TransformerOptions,
    modelMaxTokens: number,
    maxPositions: number,
  ) {
    this.maxTokens = Math.min(positiveInt('maxTokens', options.maxTokens, modelMaxTokens), maxPositions);
    if (this.maxTokens < 16) throw new Error('options.maxTokens must be at least 16');
    this.maxTitleTokens = Math.min(positiveInt('maxTitleTokens', options.maxTitleTokens, 32), this.maxTokens >> 2);
    this.overlap = options.overlapTokens ?? 32;
    if (!Number.isInteger(this.overlap) || this.overlap < 0 || this.overlap > this.maxTokens >> 1) {
      throw new Error('options.overlapTokens must be an integer between 0 and half of maxTokens');
    }
    this.batchSize = positiveInt('batchSize', options.batchSize, 8);
  }

  /** Loads model.onnx and tokenizer.json (or vocab.txt), with the settings model-config.ts reads, from a folder. */
  static async load(dir: string, options: TransformerOptions = {}): Promise<TransformerEmbedder> {
    const missing = missingTransformerFiles(dir);
    if (missing.length > 0) throw new Error(`transformer model folder ${dir} has no ${missing.join(' or ')}`);
    const config = readModelConfig(dir);
    const tokenizer = loadModelTokenizer(dir, config);
    const session = await openSession(path.join(dir, TRANSFORMER_FILES.model), options);
    const known = new Set(['input_ids', 'attention_mask', 'token_type_ids']);
    const unknown = session.inputNames.filter((n) => !known.has(n));
    if (!session.inputNames.includes('input_ids') || unknown.length > 0) {
      await session.close();
      throw new Error(
        `model ${dir} declares inputs [${session.inputNames.join(', ')}]; expected input_ids ` +
          `with optional attention_mask and token_type_ids`,
      );
    }
    const outputName = session.outputNames.includes('last_hidden_state')
      ? 'last_hidden_state'
      : (session.outputNames[0] ?? 'last_hidden_state');
    // The dimension is whatever the graph produces: embed a probe rather than trusting config.json.
    const probeIds = BigInt64Array.from([BigInt(tokenizer.clsId), BigInt(tokenizer.sepId)]);
    const probe = await session
      .run(feedsFor(session.inputNames, probeIds, BigInt64Array.from([1n, 1n])), [1, 2], outputName)
      .catch(async (err: unknown) => {
        await session.close();
        throw err;
      });
    const dimension = probe.dims[probe.dims.length - 1] ?? 0;
    const info: EmbedderInfo = { kind: 'transformer', model: config.name, dimension };
    return new TransformerEmbedder(
      info,
      tokenizer,
      session,
      outputName,
      config.pooling,
      config.queryPrefix,
      options,
      config.maxTokens ?? 256,
      config.maxPositions ?? 512,
    );
  }

  chunk(text: string, title: string): Chunk[] {
    const titleWords = this.tokenizer.words(title);
    let titleTokens = 0;
    let titleEnd = 0;
    const titleIds: number[] = [];
    for (const w of titleWords) {
      if (titleTokens + w.ids.length > this.maxTitleTokens) break;
      titleTokens += w.ids.length;
      titleEnd = w.end;
      titleIds.push(...w.ids);
    }
    const prefix = titleEnd > 0 ? `${title.slice(0, titleEnd)}\n` : '';
    const budget = this.maxTokens - 2 - titleTokens;
    const words = this.tokenizer.words(text);
    this.lastChunkIds.clear();
    if (words.length === 0) {
      if (prefix === '') return [];
      this.remember(prefix.trimEnd(), titleIds);
      return [{ index: 0, text: prefix.trimEnd(), start: 0, end: 0 }];
    }
    return windows(words.map((w) => w.ids.length), budget, this.overlap).map(([first, last], index) => {
      const start = (words[first] as TokenizedWord).start;
      const end = (words[last] as TokenizedWord).end;
      const chunkText = prefix + text.slice(start, end);
      const ids = titleIds.slice();
      for (let i = first; i <= last; i++) for (const id of (words[i] as TokenizedWord).ids) ids.push(id);
      this.remember(chunkText, ids);
      return { index, text: chunkText, start, end };
    });
  }

  /** What encode() would give for the chunk text: [CLS] ids [SEP], cut to maxTokens. */
  private remember(chunkText: string, ids: number[]): void {
    const cut = ids.length > this.maxTokens - 2 ? ids.slice(0, this.maxTokens - 2) : ids;
    this.lastChunkIds.set(chunkText, [this.tokenizer.clsId, ...cut, this.tokenizer.sepId]);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const encoded = texts.map((t) => this.lastChunkIds.get(t) ?? this.tokenizer.encode(t, this.maxTokens));
    // Longest first, so each batch pads to lengths close to its own.
    const order = encoded.map((_, i) => i).sort((a, b) => (encoded[b]?.length ?? 0) - (encoded[a]?.length ?? 0));
    const result: Float32Array[] = new Array<Float32Array>(texts.length);
    for (let b = 0; b < order.length; b += this.batchSize) {
      const batch = order.slice(b, b + this.batchSize);
      const vectors = await this.embedBatch(batch.map((i) => encoded[i] as number[]));
      batch.forEach((i, k) => (result[i] = vectors[k] as Float32Array));
    }
    return result;
  }

  /** A search query: the model's query instruction (if any) before it, one window, never chunked. */
  async embedQuery(text: string): Promise<Float32Array> {
    const [vector] = await this.embedBatch([this.tokenizer.encode(this.queryPrefix + text, this.maxTokens)]);
    return vector as Float32Array;
  }

  private async embedBatch(batch: number[][]): Promise<Float32Array[]> {
    const seq = Math.max(...batch.map((ids) => ids.length));
    const n = batch.length;
    const ids = new BigInt64Array(n * seq).fill(BigInt(this.tokenizer.padId));
    const mask = new BigInt64Array(n * seq);
    batch.forEach((row, r) =>
      row.forEach((id, c) => {
        ids[r * seq + c] = BigInt(id);
        mask[r * seq + c] = 1n;
      }),
    );
    const feeds = feedsFor(this.session.inputNames, ids, mask);
    const out = await this.session.run(feeds, [n, seq], this.outputName);
    return poolNormalize(out.data, out.dims, batch.map((row) => row.length), this.info.dimension, this.pooling);
  }

  close(): Promise<void> {
    return this.session.close();
  }
}

/** The inputs a BERT graph declares: ids, mask, and all-zero token types (one segment). */
function feedsFor(names: readonly string[], ids: BigInt64Array, mask: BigInt64Array): Record<string, BigInt64Array> {
  const feeds: Record<string, BigInt64Array> = {};
  for (const name of names) {
    feeds[name] = name === 'input_ids' ? ids : name === 'attention_mask' ? mask : new BigInt64Array(ids.length);
  }
  return feeds;
}

/**
 * One vector per row of a [batch, seq, dim] output: the mean over the row's real tokens (the first `lengths[r]`
 * positions) or its first token's vector ([CLS]), then L2 normalisation.
 */
export function poolNormalize(
  data: Float32Array,
  dims: readonly number[],
  lengths: number[],
  dimension: number,
  pooling: Pooling,
): Float32Array[] {
  if (dims.length === 2) {
    // Already pooled ([batch, dim], e.g. a `sentence_embedding` output): only normalise.
    return lengths.map((_, r) => normalize(data.slice(r * dimension, (r + 1) * dimension)));
  }
  const seq = dims[1] ?? 0;
  if (pooling === 'cls') return lengths.map((_, r) => normalize(data.slice(r * seq * dimension, (r * seq + 1) * dimension)));
  return lengths.map((len, r) => {
    const v = new Float32Array(dimension);
    for (let s = 0; s < len; s++) {
      const base = (r * seq + s) * dimension;
      for (let d = 0; d < dimension; d++) v[d] = (v[d] as number) + (data[base + d] as number);
    }
    return normalize(v);
  });
}

/** L2 normalisation (the mean's 1/len factor cancels out, so sums suffice). */
function normalize(v: Float32Array): Float32Array {
  let sq = 0;
  for (const x of v) sq += x * x;
  const norm = Math.sqrt(sq);
  if (norm > 0) for (let d = 0; d < v.length; d++) v[d] = (v[d] as number) / norm;
  return v;
}
