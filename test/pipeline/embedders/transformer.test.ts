import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ort from 'onnxruntime-node';
import { TransformerEmbedder, poolNormalize } from '../../../src/pipeline/embedders/transformer.js';
import { WordPieceTokenizer } from '../../../src/pipeline/embedders/wordpiece.js';
import { SMALL_BERT, writeBertModelDir } from '../../helpers/bert-graph.js';
import { sharedPath } from '../../helpers/shared.js';

const vocabFile = (): string => sharedPath('models', 'all-MiniLM-L6-v2-tokenizer', 'vocab.txt');

function norm(v: Float32Array): number {
  return Math.sqrt(v.reduce((a, x) => a + x * x, 0));
}

function maxAbsDiff(a: Float32Array, b: Float32Array): number {
  expect(a.length).to.equal(b.length);
  return a.reduce((m, x, i) => Math.max(m, Math.abs(x - (b[i] ?? NaN))), 0);
}

/** SciFact abstracts joined into one long document (a few thousand tokens). */
function longDocument(): { title: string; text: string } {
  const lines = readFileSync(sharedPath('datasets', 'scifact', 'corpus.jsonl'), 'utf8').split('\n').slice(0, 12);
  const docs = lines.filter((l) => l !== '').map((l) => JSON.parse(l) as { title: string; text: string });
  return { title: docs[0]?.title ?? '', text: docs.map((d) => d.text).join('\n\n') };
}

describe('TransformerEmbedder', () => {
  let tmp: string;
  let dir: string;
  let embedder: TransformerEmbedder;
  let tokenizer: WordPieceTokenizer;

  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'filesift-transformer-'));
    dir = writeBertModelDir(path.join(tmp, 'small'), SMALL_BERT, vocabFile());
    embedder = await TransformerEmbedder.load(dir, { batchSize: 4 });
    tokenizer = WordPieceTokenizer.fromVocabFile(vocabFile());
  });

  after(async () => {
    await embedder.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  const texts = [
    'A man is eating food.',
    'A man is eating a piece of bread.',
    'A man is riding a horse.',
    'A monkey is playing drums.',
    'Vitamin D deficiency is associated with increased risk of tuberculosis in several cohort studies.',
    'Short.',
  ];

  it('describes itself from config.json and the graph output', () => {
    expect(embedder.info).to.deep.equal({ kind: 'transformer', model: 'generated-bert', dimension: SMALL_BERT.hidden });
  });

  it('returns one unit vector of the model dimension per text', async () => {
    const vectors = await embedder.embed(texts);
    expect(vectors).to.have.length(texts.length);
    for (const v of vectors) {
      expect(v).to.be.instanceOf(Float32Array);
      expect(v).to.have.length(SMALL_BERT.hidden);
      expect(norm(v)).to.be.closeTo(1, 1e-5);
    }
    expect(maxAbsDiff(vectors[0] as Float32Array, vectors[3] as Float32Array)).to.be.above(1e-3);
  });

  it('mean-pools last_hidden_state over the real tokens and L2-normalises', async () => {
    const ids = tokenizer.encode(texts[4] as string, 256);
    const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), { logSeverityLevel: 3 });
    const big = BigInt64Array.from(ids.map((x) => BigInt(x)));
    const dims = [1, ids.length];
    const out = await session.run({
      input_ids: new ort.Tensor('int64', big, dims),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(ids.length).fill(1n), dims),
      token_type_ids: new ort.Tensor('int64', new BigInt64Array(ids.length), dims),
    });
    await session.release();
    const hidden = out.last_hidden_state?.data as Float32Array;
    const mean = new Float32Array(SMALL_BERT.hidden);
    for (let t = 0; t < ids.length; t++) {
      for (let d = 0; d < mean.length; d++) mean[d] = (mean[d] ?? 0) + (hidden[t * mean.length + d] ?? 0) / ids.length;
    }
    const n = norm(mean);
    const expected = mean.map((x) => x / n);
    const [actual] = await embedder.embed([texts[4] as string]);
    expect(maxAbsDiff(actual as Float32Array, expected)).to.be.below(1e-5);
  });

  it('gives the same vectors batched and one by one', async () => {
    const batched = await embedder.embed(texts);
    for (const [i, t] of texts.entries()) {
      const [single] = await embedder.embed([t]);
      expect(maxAbsDiff(single as Float32Array, batched[i] as Float32Array)).to.be.below(1e-5);
    }
  });

  it('does not let padding change a text’s embedding', async () => {
    const short = 'Short.';
    const long = 'word '.repeat(200);
    const [alone] = await embedder.embed([short]);
    const [padded] = await embedder.embed([short, long]); // padded to the long text's length
    expect(maxAbsDiff(alone as Float32Array, padded as Float32Array)).to.be.below(1e-5);
  });

  it('truncates texts longer than 256 tokens instead of failing', async () => {
    const [v] = await embedder.embed(['token '.repeat(1000)]);
    expect(norm(v as Float32Array)).to.be.closeTo(1, 1e-5);
  });

  it('feeds only the inputs the graph declares', async () => {
    const noTypes = writeBertModelDir(path.join(tmp, 'no-types'), { ...SMALL_BERT, tokenTypeIds: false }, vocabFile());
    const e = await TransformerEmbedder.load(noTypes);
    const [v] = await e.embed(['A man is eating food.']);
    expect(norm(v as Float32Array)).to.be.closeTo(1, 1e-5);
    await e.close();
  });

  it('runs an int8 (dynamically quantised) model', async () => {
    const int8 = writeBertModelDir(path.join(tmp, 'int8'), { ...SMALL_BERT, quantized: true }, vocabFile());
    const e = await TransformerEmbedder.load(int8);
    const vectors = await e.embed(texts);
    for (const v of vectors) expect(norm(v)).to.be.closeTo(1, 1e-5);
    await e.close();
  });

  it('fails to load a folder without model.onnx, naming the file', async () => {
    const empty = path.join(tmp, 'empty');
    writeBertModelDir(empty, SMALL_BERT, vocabFile());
    rmSync(path.join(empty, 'model.onnx'));
    let error: unknown;
    await TransformerEmbedder.load(empty).catch((e: unknown) => (error = e));
    expect(String(error)).to.contain('model.onnx');
  });

  it('rejects a graph with inputs it cannot feed', async () => {
    const odd = path.join(tmp, 'odd');
    writeBertModelDir(odd, SMALL_BERT, vocabFile());
    // A graph whose only input is named "pixels".
    const { GraphBuilder, DataType } = await import('../../../scripts/lib/onnx-builder.js');
    const g = new GraphBuilder('odd');
    g.input('pixels', DataType.FLOAT, ['n']);
    g.op('Identity', ['pixels'], {}, 'out');
    g.output('out', DataType.FLOAT, ['n']);
    writeFileSync(path.join(odd, 'model.onnx'), g.toBytes());
    let error: unknown;
    await TransformerEmbedder.load(odd).catch((e: unknown) => (error = e));
    expect(String(error)).to.contain('pixels');
  });

  describe('chunk', () => {
    it('keeps every chunk within 256 tokens with [CLS]/[SEP], title included', () => {
      const { title, text } = longDocument();
      const chunks = embedder.chunk(text, title);
      expect(chunks.length).to.be.above(5);
      for (const [i, c] of chunks.entries()) {
        const ids = tokenizer.encode(c.text, 100_000);
        expect(ids.length).to.be.at.most(256);
        if (i < chunks.length - 1) expect(ids.length).to.be.above(240); // windows are packed full
        expect(c.text.startsWith(`${title}\n`)).to.equal(true);
        expect(c.text.slice(title.length + 1)).to.equal(text.slice(c.start, c.end));
      }
    });

    it('overlaps consecutive chunks by at least 32 tokens and covers the whole text', () => {
      const { title, text } = longDocument();
      const chunks = embedder.chunk(text, title);
      const words = tokenizer.words(text);
      expect(chunks[0]?.start).to.equal(words[0]?.start);
      expect(chunks[chunks.length - 1]?.end).to.equal(words[words.length - 1]?.end);
      chunks.forEach((c, i) => expect(c.index).to.equal(i));
      for (let i = 1; i < chunks.length; i++) {
        const prev = chunks[i - 1]!;
        const cur = chunks[i]!;
        expect(cur.start).to.be.above(prev.start);
        expect(cur.start).to.be.below(prev.end);
        const shared = tokenizer.tokenize(text.slice(cur.start, prev.end)).length;
        expect(shared).to.be.at.least(32);
        expect(shared).to.be.below(64); // overlap stays near the setting, not half the window
      }
    });

    it('returns one chunk for a short text, a title-only chunk for an empty text, none for nothing', () => {
      expect(embedder.chunk('A man is eating food.', 'Lunch')).to.deep.equal([
        { index: 0, text: 'Lunch\nA man is eating food.', start: 0, end: 21 },
      ]);
      expect(embedder.chunk('  \n ', 'Holiday photo')).to.deep.equal([
        { index: 0, text: 'Holiday photo', start: 0, end: 0 },
      ]);
      expect(embedder.chunk('', '')).to.deep.equal([]);
      expect(embedder.chunk('No title here.', '')).to.deep.equal([
        { index: 0, text: 'No title here.', start: 0, end: 14 },
      ]);
    });

    it('hands embed() the very ids a fresh tokenisation of each chunk gives (long text, long word, title only)', async () => {
      const { title, text } = longDocument();
      const cases: [string, string][] = [[text, title], [`short ${'x'.repeat(2000)} word`, 'A title'], ['', 'Holiday photo']];
      for (const [body, heading] of cases) {
        const texts = embedder.chunk(body, heading).map((c) => c.text);
        const remembered = await embedder.embed(texts); // right after chunk(): its ids are reused
        embedder.chunk('something else', '');
        const fresh = await embedder.embed(texts); // tokenised from the text
        expect(remembered.map((v) => Array.from(v))).to.deep.equal(fresh.map((v) => Array.from(v)));
      }
    });

    it('cuts an overlong title at a word within 32 tokens', () => {
      const title = 'alpha '.repeat(60).trim();
      const [c] = embedder.chunk('body text', title);
      expect(c?.text.endsWith('\nbody text')).to.equal(true);
      expect(tokenizer.tokenize(c?.text.split('\n')[0] ?? '').length).to.be.at.most(32);
    });
  });
});

describe('poolNormalize', () => {
  // batch 2, seq 3, dim 2; row 0 has 2 real tokens, row 1 has 3.
  const data = Float32Array.from([3, 0, 0, 4, 100, 100, 1, 0, 1, 0, 1, 0]);

  it('mean: averages only the first lengths[r] positions of each row', () => {
    const [a, b] = poolNormalize(data, [2, 3, 2], [2, 3], 2, 'mean');
    expect(Array.from(a!)).to.deep.equal([0.6, 0.8].map(Math.fround));
    expect(Array.from(b!)).to.deep.equal([1, 0]);
  });

  it('cls: takes each row\'s first position ([CLS])', () => {
    const [a, b] = poolNormalize(data, [2, 3, 2], [2, 3], 2, 'cls');
    expect(Array.from(a!)).to.deep.equal([1, 0]);
    expect(Array.from(b!)).to.deep.equal([1, 0]);
    const [c] = poolNormalize(Float32Array.from([0, 3, 9, 9]), [1, 2, 2], [2], 2, 'cls');
    expect(Array.from(c!)).to.deep.equal([0, 1]);
  });

  it('only normalises an already pooled [batch, dim] output', () => {
    const [a] = poolNormalize(Float32Array.from([0, 2]), [1, 2], [5], 2, 'mean');
    expect(Array.from(a!)).to.deep.equal([0, 1]);
  });
});
