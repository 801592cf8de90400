/**
 * Generates BERT-shaped ONNX graphs with seeded random weights, so the transformer embedder can be tested
 * (and benchmarked) without real weights, which cannot be had on these machines. Same structure and op mix
 * as a torch.onnx export of a BertModel (what sentence-transformers/Xenova ship): word + position +
 * token-type embeddings and LayerNorm, then N encoder layers (multi-head self-attention with an additive
 * mask, Erf-GELU feed-forward, post-LayerNorm residuals); output `last_hidden_state` [batch, seq, hidden].
 * Random weights cost the same compute as trained ones, so a MiniLM-shaped graph measures real speed.
 *
 * The int8 variant is what onnxruntime's `quantize_dynamic` makes of such a model (and what Xenova's
 * `model_quantized.onnx` is): each MatMul with a constant weight becomes DynamicQuantizeLinear (uint8
 * activations, scale per call) + MatMulInteger against an int8 weight + rescale, which onnxruntime fuses
 * into its DynamicQuantizeMatMul kernel; the embedding tables are int8 with a DequantizeLinear after the
 * Gather. Activation×activation MatMuls (Q·Kᵀ, probs·V) stay fp32, as they do there.
 */
import { mkdirSync, writeFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { DataType, GraphBuilder } from './onnx-builder.js';
import { seededRandom } from './seeded-random.js';

export interface BertGraphConfig {
  layers: number;
  hidden: number;
  heads: number;
  intermediate: number;
  vocab: number;
  maxPositions?: number; // default 512
  typeVocab?: number; // default 2
  seed?: number; // default 1
  /** int8 weights with dynamic activation quantisation (see the file comment); default false (fp32). */
  quantized?: boolean;
  /** Whether the graph declares a token_type_ids input (HF BERT exports do); default true. */
  tokenTypeIds?: boolean;
}

/** Small enough to build and run in milliseconds; the real vocabulary size so real token ids fit. */
export const SMALL_BERT: BertGraphConfig = { layers: 2, hidden: 32, heads: 4, intermediate: 64, vocab: 30522 };

/** Exactly all-MiniLM-L6-v2's shape. */
export const MINILM_L6: BertGraphConfig = { layers: 6, hidden: 384, heads: 12, intermediate: 1536, vocab: 30522 };

/** Normal(0, std) via Box–Muller (BERT initialises with std 0.02). */
function normals(next: () => number, n: number, std: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i += 2) {
    const u = Math.max(next(), 1e-12);
    const v = next();
    const r = std * Math.sqrt(-2 * Math.log(u));
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < n) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
  return out;
}

/** Symmetric per-tensor int8 quantisation, as quantize_dynamic does for weights (QInt8). */
function quantizeInt8(w: Float32Array): { q: Int8Array; scale: number } {
  let max = 0;
  for (const x of w) max = Math.max(max, Math.abs(x));
  const scale = max > 0 ? max / 127 : 1;
  const q = new Int8Array(w.length);
  for (let i = 0; i < w.length; i++) q[i] = Math.max(-127, Math.min(127, Math.round((w[i] ?? 0) / scale)));
  return { q, scale };
}

export function bertGraph(config: BertGraphConfig): Uint8Array {
  const { layers, hidden, heads, intermediate, vocab } = config;
  const maxPositions = config.maxPositions ?? 512;
  const typeVocab = config.typeVocab ?? 2;
  const quantized = config.quantized ?? false;
  if (hidden % heads !== 0) throw new Error('hidden must be a multiple of heads');
  const headDim = hidden / heads;
  const next = seededRandom(config.seed ?? 1);
  const g = new GraphBuilder('bert');

  const ids = g.input('input_ids', DataType.INT64, ['batch', 'sequence']);
  const mask = g.input('attention_mask', DataType.INT64, ['batch', 'sequence']);
  const types = config.tokenTypeIds === false ? null : g.input('token_type_ids', DataType.INT64, ['batch', 'sequence']);

  const one = g.initFloat('one', [], [1]);
  const half = g.initFloat('half', [], [0.5]);
  const sqrt2 = g.initFloat('sqrt2', [], [Math.SQRT2]);
  const int8Zero = quantized ? g.init('int8_zero', DataType.INT8, [], new Int8Array([0])) : '';

  const embeddingTable = (name: string, rows: number, index: string): string => {
    const w = normals(next, rows * hidden, 0.02);
    if (!quantized) return g.op('Gather', [g.initFloat(name, [rows, hidden], w), index]);
    const { q, scale } = quantizeInt8(w);
    const table = g.init(`${name}_q`, DataType.INT8, [rows, hidden], q);
    const gathered = g.op('Gather', [table, index]);
    return g.op('DequantizeLinear', [gathered, g.initFloat(`${name}_scale`, [], [scale]), int8Zero]);
  };

  const linear = (x: string, name: string, inDim: number, outDim: number): string => {
    const w = normals(next, inDim * outDim, 0.02);
    const bias = g.initFloat(`${name}_b`, [outDim], normals(next, outDim, 0.02));
    let y: string;
    if (quantized) {
      const { q, scale } = quantizeInt8(w);
      const wq = g.init(`${name}_wq`, DataType.INT8, [inDim, outDim], q);
      const [xq, xScale, xZero] = g.node('DynamicQuantizeLinear', [x], 3) as [string, string, string];
      const yInt = g.op('MatMulInteger', [xq, wq, xZero, int8Zero]);
      const yF = g.op('Cast', [yInt], { to: { int: DataType.FLOAT } });
      y = g.op('Mul', [yF, g.op('Mul', [xScale, g.initFloat(`${name}_wscale`, [], [scale])])]);
    } else {
      y = g.op('MatMul', [x, g.initFloat(`${name}_w`, [inDim, outDim], w)]);
    }
    return g.op('Add', [y, bias]);
  };

  const layerNorm = (x: string, name: string): string =>
    g.op('LayerNormalization', [x, g.initFloat(`${name}_gamma`, [hidden], new Float32Array(hidden).fill(1)),
      g.initFloat(`${name}_beta`, [hidden], new Float32Array(hidden))], { axis: { int: -1 }, epsilon: { float: 1e-12 } });

  // Embeddings: positions 0..seq-1 come from the input's shape, as in the exported graph.
  const seqLen = g.op('Gather', [g.op('Shape', [ids]), g.initInt64('dim1', [], [1])], { axis: { int: 0 } });
  const positions = g.op('Range', [g.initInt64('zero_i64', [], [0]), seqLen, g.initInt64('one_i64', [], [1])]);
  const typeIndex = types ?? g.initInt64('type0', [], [0]);
  let h = g.op('Add', [
    g.op('Add', [embeddingTable('word_embeddings', vocab, ids), embeddingTable('position_embeddings', maxPositions, positions)]),
    embeddingTable('token_type_embeddings', typeVocab, typeIndex),
  ]);
  h = layerNorm(h, 'emb_ln');

  // Additive mask [batch, 1, 1, seq]: 0 where attended, -10000 on padding (exp underflows to exactly 0).
  const maskF = g.op('Cast', [mask], { to: { int: DataType.FLOAT } });
  const maskBias = g.op('Unsqueeze', [
    g.op('Mul', [g.op('Sub', [one, maskF]), g.initFloat('neg_big', [], [-10000])]),
    g.initInt64('axes12', [2], [1, 2]),
  ]);
  const splitHeads = g.initInt64('split_heads', [4], [0, 0, heads, headDim]);
  const mergeHeads = g.initInt64('merge_heads', [3], [0, 0, hidden]);
  const invSqrtD = g.initFloat('inv_sqrt_d', [], [1 / Math.sqrt(headDim)]);

  for (let l = 0; l < layers; l++) {
    const p = `layer${l}`;
    const heads4 = (x: string, perm: number[]): string =>
      g.op('Transpose', [g.op('Reshape', [x, splitHeads])], { perm: { ints: perm } });
    const q = heads4(linear(h, `${p}_q`, hidden, hidden), [0, 2, 1, 3]);
    const k = heads4(linear(h, `${p}_k`, hidden, hidden), [0, 2, 3, 1]);
    const v = heads4(linear(h, `${p}_v`, hidden, hidden), [0, 2, 1, 3]);
    const scores = g.op('Add', [g.op('Mul', [g.op('MatMul', [q, k]), invSqrtD]), maskBias]);
    const probs = g.op('Softmax', [scores], { axis: { int: -1 } });
    const context = g.op('Reshape', [
      g.op('Transpose', [g.op('MatMul', [probs, v])], { perm: { ints: [0, 2, 1, 3] } }),
      mergeHeads,
    ]);
    const attended = layerNorm(g.op('Add', [linear(context, `${p}_o`, hidden, hidden), h]), `${p}_attn_ln`);
    const up = linear(attended, `${p}_ff1`, hidden, intermediate);
    const gelu = g.op('Mul', [g.op('Mul', [up, half]), g.op('Add', [g.op('Erf', [g.op('Div', [up, sqrt2])]), one])]);
    const down = linear(gelu, `${p}_ff2`, intermediate, hidden);
    h = layerNorm(g.op('Add', [down, attended]), `${p}_ff_ln`);
  }
  g.op('Identity', [h], {}, 'last_hidden_state');
  g.output('last_hidden_state', DataType.FLOAT, ['batch', 'sequence', hidden]);
  return g.toBytes({ producer: 'filesift-bert-graph' });
}

/**
 * Writes a model folder the transformer embedder can load: model.onnx (generated), the given vocab.txt and
 * a config.json with the graph's shape. Returns the folder.
 */
export function writeBertModelDir(dir: string, config: BertGraphConfig, vocabFile: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'model.onnx'), bertGraph(config));
  copyFileSync(vocabFile, path.join(dir, 'vocab.txt'));
  writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({
      _name_or_path: 'generated-bert',
      model_type: 'bert',
      hidden_size: config.hidden,
      num_hidden_layers: config.layers,
      num_attention_heads: config.heads,
      intermediate_size: config.intermediate,
      vocab_size: config.vocab,
      max_position_embeddings: config.maxPositions ?? 512,
    }),
  );
  return dir;
}
