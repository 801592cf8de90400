import { expect } from 'chai';
import path from 'node:path';
import { defaultBuiltinDir } from '../../../src/pipeline/embedders/index.js';
import { StaticEmbedder, StaticTokenizer } from '../../../src/pipeline/embedders/static.js';

function dot(a: Float32Array, b: Float32Array): number {
  return a.reduce((s, x, i) => s + x * (b[i] ?? 0), 0);
}

/** Uses the real build that `npm run build` makes (postbuild) in build/models/builtin-static. */
describe('StaticEmbedder', () => {
  let embedder: StaticEmbedder;

  before(async () => {
    embedder = await StaticEmbedder.load(defaultBuiltinDir());
  });
  after(() => embedder.close());

  it('is the 100-dimensional GloVe SIF model', () => {
    expect(embedder.info).to.deep.equal({ kind: 'static', model: 'glove-sg-100d-sif', dimension: 100 });
  });

  it('returns unit vectors, closer for texts about the same thing', async () => {
    const [cat, kitten, market] = await embedder.embed([
      'The cat sat on the mat and purred.',
      'A kitten was sleeping on the rug.',
      'Stock markets fell sharply after the central bank raised interest rates.',
    ]);
    for (const v of [cat, kitten, market]) expect(Math.sqrt(dot(v!, v!))).to.be.closeTo(1, 1e-5);
    expect(dot(cat!, kitten!)).to.be.above(dot(cat!, market!) + 0.1);
  });

  it('gives the same vectors batched and one by one', async () => {
    const texts = ['short text', 'a somewhat longer text about proteins and cells', 'x'];
    const batched = await embedder.embed(texts);
    for (const [i, t] of texts.entries()) {
      const [single] = await embedder.embed([t]);
      Array.from(single!).forEach((x, d) => expect(x).to.be.closeTo(batched[i]![d]!, 1e-6));
    }
  });

  describe('chunk', () => {
    // Known words, plus unknown ones ("qzx123") that must count towards a chunk's size too.
    const text = Array.from({ length: 300 }, (_, i) => `word${i % 7 === 0 ? '' : 's'} cell qzx${i} protein`).join(' ');
    const size = (t: string): number =>
      embedder.tokenizer.words(t).reduce((n, w) => n + Math.max(1, w.ids.length), 0);

    it('windows at most 96 words, 12 shared, title prepended, offsets into the text', () => {
      const chunks = embedder.chunk(text, 'A title');
      expect(chunks.length).to.be.above(5);
      for (const [i, c] of chunks.entries()) {
        expect(c.index).to.equal(i);
        expect(c.text).to.equal(`A title\n${text.slice(c.start, c.end)}`);
        expect(size(text.slice(c.start, c.end))).to.be.at.most(96);
        if (i < chunks.length - 1) expect(size(text.slice(c.start, c.end))).to.be.at.least(93);
        if (i > 0) {
          const prev = chunks[i - 1]!;
          expect(size(text.slice(c.start, prev.end))).to.be.at.least(12);
        }
      }
      expect(chunks[chunks.length - 1]!.end).to.equal(text.length);
    });

    it('embeds its chunks exactly as their texts embed on their own', async () => {
      const chunks = embedder.chunk(text, 'Cell proteins, T-cell études');
      const fromChunks = await embedder.embed(chunks.map((c) => c.text)); // ids remembered by chunk()
      embedder.chunk('something else', ''); // forgets them
      const fresh = await embedder.embed(chunks.map((c) => c.text));
      fromChunks.forEach((v, i) => expect(Array.from(v)).to.deep.equal(Array.from(fresh[i]!)));
    });

    it('returns a title-only chunk for a text without words, and nothing for nothing', () => {
      expect(embedder.chunk(' … ', 'Photo')).to.deep.equal([{ index: 0, text: 'Photo', start: 0, end: 0 }]);
      expect(embedder.chunk('', '  ')).to.deep.equal([]);
    });
  });
});

describe('StaticTokenizer', () => {
  const tok = new StaticTokenizer(['[PAD]', 'the', 'cafe', 't-cell', 'il', 'mediated', 'strasse', 'cell']);

  it('lowercases, folds accents and letters like ß, and keeps offsets in the original text', () => {
    const text = 'The Café, STRAßE!';
    const words = tok.words(text);
    expect(words.map((w) => w.ids)).to.deep.equal([[1], [2], [6]]);
    expect(words.map((w) => text.slice(w.start, w.end))).to.deep.equal(['The', 'Café', 'STRAßE']);
  });

  it('looks up hyphenated words whole, else by their parts', () => {
    expect(tok.ids('T-cell')).to.deep.equal([3]);
    expect(tok.ids('IL-6-mediated')).to.deep.equal([4, 5]);
    expect(tok.ids('B-cell')).to.deep.equal([7]);
  });

  it('drops unknown words but still reports them as words (for offsets)', () => {
    expect(tok.words('unknownword the')).to.have.length(2);
    expect(tok.ids('unknownword the')).to.deep.equal([1]);
  });

  it('reads a vocab file of the real build', () => {
    const real = StaticTokenizer.fromVocabFile(path.join(defaultBuiltinDir(), 'vocab.txt'));
    expect(real.size).to.equal(341479);
    expect(real.ids('the')).to.deep.equal([1]);
  });
});
