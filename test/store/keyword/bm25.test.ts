import { expect } from 'chai';
import { bm25Idf, bm25Score, bm25TermScore, weightedSum, type FieldValues } from '../../../src/store/keyword/bm25.js';

const fields = (name: number, keywords: number, summary: number, content: number): FieldValues => ({ name, keywords, summary, content });

describe('bm25Idf', () => {
  it('is ln(1 + (N - df + 0.5) / (df + 0.5))', () => {
    // N = 10, df = 2: ln(1 + 8.5 / 2.5) = ln(4.4)
    expect(bm25Idf(2, 10)).to.be.closeTo(Math.log(4.4), 1e-12);
  });

  it('stays positive for a term in every document, and falls as df grows', () => {
    expect(bm25Idf(10, 10)).to.be.closeTo(Math.log(1 + 0.5 / 10.5), 1e-12);
    expect(bm25Idf(10, 10)).to.be.greaterThan(0);
    expect(bm25Idf(1, 10)).to.be.greaterThan(bm25Idf(5, 10));
  });
});

describe('bm25TermScore', () => {
  it('matches a hand-computed value', () => {
    // tf 3, df 2, N 10, dl 120, avgdl 100, k1 1.2, b 0.75:
    // norm = 1.2 · (0.25 + 0.75 · 1.2) = 1.38; tf part = 3 · 2.2 / (3 + 1.38) = 6.6 / 4.38
    const expected = Math.log(4.4) * (6.6 / 4.38);
    expect(bm25TermScore(3, 2, 10, 120, 100, { k1: 1.2, b: 0.75 })).to.be.closeTo(expected, 1e-12);
  });

  it('is 0 without the term, saturates with k1 and ignores length when b = 0', () => {
    expect(bm25TermScore(0, 2, 10, 100, 100, { k1: 1.2, b: 0.75 })).to.equal(0);
    const idf = bm25Idf(2, 10);
    expect(bm25TermScore(1000, 2, 10, 100, 100, { k1: 1.2, b: 0.75 })).to.be.closeTo(idf * 2.2, 0.01);
    expect(bm25TermScore(3, 2, 10, 50, 100, { k1: 1.2, b: 0 })).to.equal(bm25TermScore(3, 2, 10, 500, 100, { k1: 1.2, b: 0 }));
  });

  it('counts presence only when k1 = 0', () => {
    expect(bm25TermScore(7, 2, 10, 300, 100, { k1: 0, b: 0.4 })).to.be.closeTo(bm25Idf(2, 10), 1e-12);
  });
});

describe('weightedSum', () => {
  it('weights each field', () => {
    expect(weightedSum(fields(1, 2, 3, 4), fields(2, 1, 0.5, 1))).to.equal(2 + 2 + 1.5 + 4);
  });
});

describe('bm25Score', () => {
  const collection = {
    documentCount: 4,
    totalLengths: fields(8, 0, 0, 392),
    documentFrequency: new Map([
      ['cat', 2],
      ['dog', 1],
    ]),
  };
  const doc = {
    termFrequencies: new Map([
      ['cat', fields(1, 0, 0, 2)],
      ['dog', fields(0, 0, 0, 1)],
    ]),
    lengths: fields(2, 0, 0, 98),
  };

  it('sums BM25F term scores with weighted tf and length', () => {
    const params = { k1: 0.9, b: 0.4, weights: fields(2, 1, 1, 1), queryTermFrequency: false };
    const avgdl = (2 * 8 + 392) / 4; // 102
    const dl = 2 * 2 + 98; // 102
    const expected =
      bm25TermScore(2 * 1 + 2, 2, 4, dl, avgdl, params) + bm25TermScore(1, 1, 4, dl, avgdl, params);
    expect(bm25Score(new Map([['cat', 1], ['dog', 1]]), doc, collection, params)).to.be.closeTo(expected, 1e-12);
  });

  it('repeats a term as often as the query does only with queryTermFrequency', () => {
    const base = { k1: 0.9, b: 0.4, weights: fields(1, 1, 1, 1) };
    const once = bm25Score(new Map([['dog', 1]]), doc, collection, { ...base, queryTermFrequency: false });
    expect(bm25Score(new Map([['dog', 3]]), doc, collection, { ...base, queryTermFrequency: false })).to.equal(once);
    expect(bm25Score(new Map([['dog', 3]]), doc, collection, { ...base, queryTermFrequency: true })).to.be.closeTo(3 * once, 1e-12);
  });

  it('ignores lexemes the document or the collection lacks', () => {
    const params = { k1: 0.9, b: 0.4, weights: fields(1, 1, 1, 1), queryTermFrequency: false };
    expect(bm25Score(new Map([['bird', 1]]), doc, collection, params)).to.equal(0);
  });
});
