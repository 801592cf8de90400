/**
 * The transformer embedder on the real models (int8 exports from Maven Central, scripts/fetch-models.sh): the
 * vectors are exactly what the model gives for the reference tokenizer's ids under the model's own pooling, bge's
 * query instruction goes on queries only, and retrieval on SciFact works. The published-figure check (nDCG@10 on
 * all of SciFact) is `npm run bench:quality`; this is the part cheap enough for every test run.
 */
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ort from 'onnxruntime-node';
import { Tokenizer as ReferenceTokenizer } from 'tokenizers';
import { KNOWN_MODELS } from '../../../src/pipeline/embedders/known-models.js';
import { loadEmbedder } from '../../../src/pipeline/embedders/index.js';
import type { Embedder } from '../../../src/pipeline/embedders/types.js';
import { describeWithRealModel, type RealModel } from '../../helpers/models.js';
import { sharedPath } from '../../helpers/shared.js';

function dot(a: Float32Array, b: Float32Array): number {
  return a.reduce((s, x, i) => s + x * (b[i] as number), 0);
}

/** The model's raw last_hidden_state for one text, tokenised by the Hugging Face reference tokenizer. */
async function referenceHidden(dir: string, text: string): Promise<{ hidden: Float32Array; tokens: number }> {
  const reference = ReferenceTokenizer.fromFile(path.join(dir, 'tokenizer.json'));
  reference.disablePadding();
  reference.disableTruncation();
  const ids = (await reference.encode(text)).getIds();
  const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'));
  try {
    const n = ids.length;
    const feeds = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, n]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(n).fill(1n), [1, n]),
      token_type_ids: new ort.Tensor('int64', new BigInt64Array(n), [1, n]),
    };
    const out = await session.run(feeds);
    return { hidden: out.last_hidden_state!.data as Float32Array, tokens: n };
  } finally {
    await session.release();
  }
}

function unit(v: Float32Array): Float32Array {
  const n = Math.sqrt(dot(v, v));
  return v.map((x) => x / n);
}

/** SciFact test claims with one relevant abstract each, and those abstracts: a small retrieval check. */
function sciFactSample(count: number): { queries: { text: string; doc: number }[]; docs: { title: string; text: string }[] } {
  const dir = sharedPath('datasets', 'scifact');
  const qrels = new Map<string, string>();
  for (const line of readFileSync(path.join(dir, 'qrels.tsv'), 'utf8').split('\n').slice(1)) {
    const [q, d] = line.trim().split('\t');
    if (q && d && !qrels.has(q)) qrels.set(q, d);
  }
  const queries = readFileSync(path.join(dir, 'queries.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { _id: string; text: string })
    .filter((q) => qrels.has(q._id))
    .slice(0, count);
  const docs: { title: string; text: string }[] = [];
  const out = queries.map((q) => {
    const text = readFileSync(path.join(dir, 'files', `${qrels.get(q._id)}.txt`), 'utf8');
    docs.push({ title: text.split('\n', 1)[0] ?? '', text });
    return { text: q.text, doc: docs.length - 1 };
  });
  return { queries: out, docs };
}

for (const model of ['all-MiniLM-L6-v2-int8', 'bge-small-en-v1.5-int8'] as const satisfies readonly RealModel[]) {
  describeWithRealModel(model, 'TransformerEmbedder on a real model', (dir) => {
    const name = model.replace(/-int8$/, '') as keyof typeof KNOWN_MODELS;
    const known = KNOWN_MODELS[name];
    let embedder: Embedder;

    before(async () => {
      embedder = await loadEmbedder({ modelDir: dir, builtinDir: '/nonexistent' });
    });
    after(() => embedder.close());

    it('names the model and its dimension from its folder', () => {
      expect(embedder.info).to.deep.equal({ kind: 'transformer', model: name, dimension: 384 });
    });

    it(`gives exactly the model's ${known.pooling} pooling of the reference tokenizer's ids`, async () => {
      const text = 'Intranasal insulin improves memory in adults with Alzheimer disease: a pilot trial.';
      const [ours] = await embedder.embed([text]);
      const { hidden, tokens } = await referenceHidden(dir, text);
      const dim = 384;
      const pooled = new Float32Array(dim);
      if (known.pooling === 'cls') pooled.set(hidden.subarray(0, dim));
      else for (let t = 0; t < tokens; t++) for (let d = 0; d < dim; d++) pooled[d]! += hidden[t * dim + d]!;
      expect(dot(ours!, unit(pooled))).to.be.above(0.99999);
      // The other pooling gives a clearly different vector: the test can tell them apart.
      const other = new Float32Array(dim);
      if (known.pooling === 'cls') for (let t = 0; t < tokens; t++) for (let d = 0; d < dim; d++) other[d]! += hidden[t * dim + d]!;
      else other.set(hidden.subarray(0, dim));
      expect(dot(ours!, unit(other))).to.be.below(0.99);
    });

    it(known.queryPrefix ? 'puts the query instruction before queries only' : 'embeds a query like a document (no instruction)', async () => {
      const text = 'does a nose spray hormone help memory in dementia';
      const query = await embedder.embedQuery(text);
      const [asDocument] = await embedder.embed([text]);
      const [withPrefix] = await embedder.embed([known.queryPrefix + text]);
      expect(dot(query, withPrefix!)).to.be.above(0.99999);
      if (known.queryPrefix) expect(dot(query, asDocument!)).to.be.below(0.99);
      else expect(dot(query, asDocument!)).to.be.above(0.99999);
    });

    it('finds the relevant abstract of SciFact claims among 40', async () => {
      const { queries, docs } = sciFactSample(40);
      const vectors: { doc: number; v: Float32Array }[] = [];
      for (const [i, d] of docs.entries()) {
        const chunks = embedder.chunk(d.text, d.title);
        for (const v of await embedder.embed(chunks.map((c) => c.text))) vectors.push({ doc: i, v });
      }
      let top1 = 0;
      for (const q of queries) {
        const qv = await embedder.embedQuery(q.text);
        const best = vectors.reduce((a, b) => (dot(b.v, qv) > dot(a.v, qv) ? b : a));
        if (best.doc === q.doc) top1++;
      }
      // Measured 36/40 (MiniLM) and 37/40 (bge) int8; a broken tokenizer, pooling or prefix falls far below.
      expect(top1).to.be.at.least(32);
    });
  });
}
