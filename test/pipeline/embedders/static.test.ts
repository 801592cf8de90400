import { expect } from 'chai';
import path from 'node:path';
import { windows } from '../../../src/pipeline/embedders/windows.js';
import { defaultBuiltinDir } from '../../../src/pipeline/embedders/index.js';
import { boundedWindows, DEFAULT_MAX_CHUNKS, StaticEmbedder, StaticTokenizer } from '../../../src/pipeline/embedders/static.js';

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
      expect(Array.from(single!)).to.deep.equal(Array.from(batched[i]!));
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

    it(`gives a long text at most ${DEFAULT_MAX_CHUNKS} chunks, wider ones, still covering all of it`, async () => {
      const long = Array.from({ length: 40 }, () => text).join('\n');
      const chunks = embedder.chunk(long, 'A title');
      expect(chunks).to.have.length.within(DEFAULT_MAX_CHUNKS - 2, DEFAULT_MAX_CHUNKS);
      expect(chunks[0]!.start).to.equal(0);
      expect(chunks.at(-1)!.end).to.equal(long.length);
      for (const [i, c] of chunks.entries()) {
        expect(c.index).to.equal(i);
        if (i > 0) expect(c.start).to.be.below(chunks[i - 1]!.end); // consecutive chunks overlap: no word left out
      }
      // Wide windows embed as they would alone.
      const all = await embedder.embed(chunks.map((c) => c.text));
      for (const i of [0, chunks.length - 1]) {
        const [alone] = await embedder.embed([chunks[i]!.text]);
        expect(Array.from(alone!)).to.deep.equal(Array.from(all[i]!));
      }
      // Texts that fit in K 96-word chunks are chunked as before.
      expect(embedder.chunk(text, 'A title').every((c) => size(text.slice(c.start, c.end)) <= 96)).to.equal(true);
    });

    it('chunks and embeds a long text as windows over its words() would', async () => {
      const long = Array.from({ length: 120 }, (_, i) => `${text} Zellkern-Protein il-6-mediated ${i}`).join('\n');
      const words = embedder.tokenizer.words(long);
      const expected = boundedWindows(words.map((w) => Math.max(1, w.ids.length)), 96, 12, DEFAULT_MAX_CHUNKS).map(([first, last]) => ({
        start: words[first]!.start,
        end: words[last]!.end,
        ids: [...embedder.tokenizer.ids('A title'), ...words.slice(first, last + 1).flatMap((w) => w.ids)],
      }));
      const chunks = embedder.chunk(long, 'A title');
      expect(chunks.map((c) => [c.start, c.end])).to.deep.equal(expected.map((e) => [e.start, e.end]));
      const vectors = await embedder.embed(chunks.map((c) => c.text));
      vectors.forEach((v, i) => expect(Array.from(v)).to.deep.equal(Array.from(embedder.table.embed(expected[i]!.ids))));
    });

    it('boundedWindows: at most maxChunks windows of at least the budget, every word in one; 0 is no limit', () => {
      const counts = Array.from({ length: 10_000 }, (_, i) => (i % 13 === 0 ? 3 : 1));
      expect(boundedWindows(counts, 96, 12, 0)).to.deep.equal(windows(counts, 96, 12));
      for (const k of [1, 7, 32, 200]) {
        const out = boundedWindows(counts, 96, 12, k);
        expect(out.length).to.be.within(1, k);
        expect(out[0]![0]).to.equal(0);
        expect(out.at(-1)![1]).to.equal(counts.length - 1);
        out.slice(1).forEach(([first], i) => expect(first).to.be.at.most(out[i]![1] + 1));
      }
      expect(boundedWindows([5, 5], 96, 12, 32)).to.deep.equal([[0, 1]]);
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

  it("finds exactly the expression's words and ids, whatever the mix of ASCII and other characters", () => {
    // The scan reads ASCII words by a loop of its own and hands over to the expression at any other character:
    // the reference here is the expression alone, with the documented key (lower case, accents folded) and lookup.
    const vocab = ['[PAD]', 'the', 'cafe', 't-cell', 'il', 'mediated', 'strasse', 'cell', 'a1', 'zz', 'b-c', 'e', 'i', 'x9'];
    const tok = new StaticTokenizer(vocab);
    const line = new Map(vocab.map((w, i) => [w, i]));
    const folds: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ı: 'i', þ: 'th', ð: 'd' };
    const key = (word: string): string => {
      const lower = word.toLowerCase();
      return /^[a-z0-9-]+$/.test(lower) ? lower : lower.normalize('NFD').replace(/\p{M}/gu, '').replace(/[ßæœøłđıþð]/g, (c) => folds[c] ?? c);
    };
    const idOf = (w: string): number | undefined => (line.get(w) ?? 0) > 0 ? line.get(w) : undefined;
    const reference = (text: string) =>
      [...text.matchAll(/[\p{L}\p{N}\p{M}]+(?:-[\p{L}\p{N}\p{M}]+)*/gu)].map((m) => {
        const k = key(m[0]);
        const whole = idOf(k);
        const ids = whole !== undefined ? [whole] : k.includes('-') ? k.split('-').flatMap((p) => idOf(p) ?? []) : [];
        return { start: m.index, end: m.index + m[0].length, ids };
      });
    const pieces = ['the', 'The', 'CAFE', 'Café', 'cafe\u0301', 'T-cell', 'IL-6-mediated', 'b-c', 'B-C-', '-', '--', ' ', '  ', '\n',
      'a1', 'Zz', 'x9', 'é', 'e', 'ß', 'STRAßE', '’', '—', '\u00ad', '😀', 'İ', 'I', '²', 'ª', '\u0301', '.', '_', 'ǅ', '日本', 'cell', '9'];
    let seed = 52;
    const random = (n: number): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    for (let round = 0; round < 3000; round++) {
      let text = '';
      for (let k = random(24); k > 0; k--) text += pieces[random(pieces.length)];
      const got = tok.words(text).map((w) => ({ start: w.start, end: w.end, ids: [...w.ids] }));
      expect(got, JSON.stringify(text)).to.deep.equal(reference(text));
    }
  });

  it('reads a vocab file of the real build', () => {
    const real = StaticTokenizer.fromVocabFile(path.join(defaultBuiltinDir(), 'vocab.txt'));
    expect(real.size).to.equal(341479);
    expect(real.ids('the')).to.deep.equal([1]);
  });
});

describe('the built-in embedder without onnxruntime', () => {
  it('loads and embeds in a process that never maps onnxruntime (only a transformer imports it)', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const index = new URL('../../../src/pipeline/embedders/index.js', import.meta.url).href;
    const resolve = new URL('../../../src/models/resolve.js', import.meta.url).href;
    const pool = new URL('../../../src/pipeline/pool.js', import.meta.url).href;
    const script = `
      const { loadEmbedder, defaultBuiltinDir } = await import(${JSON.stringify(index)});
      await import(${JSON.stringify(resolve)}); await import(${JSON.stringify(pool)}); // the main thread's imports
      const embedder = await loadEmbedder({ builtinDir: defaultBuiltinDir() });
      const [v] = await embedder.embed(['a lighthouse keeper']);
      const libraries = process.report.getReport().sharedObjects;
      console.log(JSON.stringify({ dimension: v.length, onnx: libraries.filter((l) => /onnxruntime/.test(l)) }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
    expect(JSON.parse(stdout)).to.deep.equal({ dimension: 100, onnx: [] });
  });
});
