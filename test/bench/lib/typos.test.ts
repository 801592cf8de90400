import { expect } from 'chai';
import { editWord, misspell, wordFrequencies } from '../../../bench/lib/typos.js';
import { seededRandom } from '../../../scripts/lib/seeded-random.js';

/** Levenshtein distance, to check that an edit is exactly one. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length]![b.length]!;
}

describe('typos', () => {
  const df = wordFrequencies(['Vitamin D and tuberculosis', 'vitamin levels in blood', 'Blood pressure and vitamin intake']);

  it('counts in how many documents each word of 4+ letters occurs, ignoring case', () => {
    expect(df.get('vitamin')).to.equal(3);
    expect(df.get('blood')).to.equal(2);
    expect(df.get('tuberculosis')).to.equal(1);
    expect(df.has('and')).to.equal(false);
  });

  it('misspells the rarest word with exactly one letter edit, the same for the same seed', () => {
    const typo = misspell('Does vitamin in blood affect tuberculosis?', df, 7)!;
    expect(typo.word).to.equal('tuberculosis');
    expect(distance(typo.typo, 'tuberculosis')).to.equal(1);
    expect(typo.text).to.equal(`Does vitamin in blood affect ${typo.typo}?`);
    expect(misspell('Does vitamin in blood affect tuberculosis?', df, 7)).to.deep.equal(typo);
  });

  it('leaves alone queries without a known word of 4+ letters', () => {
    expect(misspell('is it so', df, 1)).to.equal(null);
    expect(misspell('unknownword here', df, 1)).to.equal(null);
  });

  it('deletes, inserts and replaces letters, never answering the word itself', () => {
    const random = seededRandom(3);
    const lengths = new Set<number>();
    for (let i = 0; i < 300; i++) {
      const edited = editWord('aaab', random);
      expect(distance(edited, 'aaab')).to.equal(1);
      lengths.add(edited.length);
    }
    expect([...lengths].sort()).to.deep.equal([3, 4, 5]);
  });
});
