import { expect } from 'chai';
import ort from 'onnxruntime-node';
import { bertGraph, SMALL_BERT } from '../../helpers/bert-graph.js';

async function run(bytes: Uint8Array, ids: number[][]): Promise<ort.Tensor> {
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, logSeverityLevel: 3 });
  try {
    const seq = ids[0]?.length ?? 0;
    const dims = [ids.length, seq];
    const flat = BigInt64Array.from(ids.flat().map((x) => BigInt(x)));
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', flat, dims),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(flat.length).fill(1n), dims),
    };
    if (session.inputNames.includes('token_type_ids')) {
      feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(flat.length), dims);
    }
    const out = (await session.run(feeds)).last_hidden_state;
    if (out === undefined) throw new Error('no last_hidden_state');
    return out;
  } finally {
    await session.release();
  }
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] ?? 0) * (b[i] ?? 0);
    na += (a[i] ?? 0) ** 2;
    nb += (b[i] ?? 0) ** 2;
  }
  return dot / Math.sqrt(na * nb);
}

describe('bertGraph', () => {
  const ids = [
    [101, 1037, 2158, 2003, 5983, 2833, 1012, 102],
    [101, 1037, 10608, 2003, 2652, 3846, 1012, 102],
  ];

  it('builds an fp32 graph that onnxruntime runs, with output [batch, seq, hidden]', async () => {
    const out = await run(bertGraph(SMALL_BERT), ids);
    expect(out.dims).to.deep.equal([2, 8, SMALL_BERT.hidden]);
    const data = out.data as Float32Array;
    expect(data.every(Number.isFinite)).to.equal(true);
    // Post-LayerNorm hidden states have mean ~0 and variance ~1 per token (gamma 1, beta 0).
    const token = Array.from(data.slice(0, SMALL_BERT.hidden));
    const mean = token.reduce((a, b) => a + b, 0) / token.length;
    const variance = token.reduce((a, b) => a + (b - mean) ** 2, 0) / token.length;
    expect(mean).to.be.closeTo(0, 1e-4);
    expect(variance).to.be.closeTo(1, 1e-2);
    // Different tokens give different states.
    expect(cosine(data.slice(0, 32), data.slice(32, 64))).to.be.below(0.99);
  });

  it('is reproducible for a seed and differs across seeds', () => {
    expect(Buffer.from(bertGraph(SMALL_BERT)).equals(Buffer.from(bertGraph(SMALL_BERT)))).to.equal(true);
    expect(Buffer.from(bertGraph({ ...SMALL_BERT, seed: 2 })).equals(Buffer.from(bertGraph(SMALL_BERT)))).to.equal(false);
  });

  it('builds an int8 graph (dynamic quantisation) whose output tracks the fp32 one', async () => {
    const fp32 = bertGraph(SMALL_BERT);
    const int8 = bertGraph({ ...SMALL_BERT, quantized: true });
    expect(int8.length).to.be.below(fp32.length / 3); // weights stored as int8
    const a = (await run(fp32, ids)).data as Float32Array;
    const b = (await run(int8, ids)).data as Float32Array;
    expect(a.length).to.equal(b.length);
    expect(cosine(a, b)).to.be.above(0.95);
  });

  it('omits token_type_ids when asked', async () => {
    const bytes = bertGraph({ ...SMALL_BERT, tokenTypeIds: false });
    const session = await ort.InferenceSession.create(bytes, { logSeverityLevel: 3 });
    expect(session.inputNames).to.deep.equal(['input_ids', 'attention_mask']);
    await session.release();
  });
});
