import { expect } from 'chai';
import { normalizeMax, normalizeMinMax, normalizeScores } from '../../src/search/normalize.js';

describe('normalizeMax', () => {
  it('divides by the best score, keeping order and ids', () => {
    expect(normalizeMax([[3, 2], [1, 8], [2, 4]])).to.deep.equal([[3, 0.25], [1, 1], [2, 0.5]]);
  });

  it('gives zeros when no score is positive, and nothing for nothing', () => {
    expect(normalizeMax([[1, 0], [2, -0.5]])).to.deep.equal([[1, 0], [2, 0]]);
    expect(normalizeMax([])).to.deep.equal([]);
  });
});

describe('normalizeMinMax', () => {
  it('maps the worst to 0 and the best to 1', () => {
    expect(normalizeMinMax([[1, 10], [2, 6], [3, 2]])).to.deep.equal([[1, 1], [2, 0.5], [3, 0]]);
  });

  it('works on negative scores (cosine)', () => {
    expect(normalizeMinMax([[1, 0.5], [2, -0.5]])).to.deep.equal([[1, 1], [2, 0]]);
  });

  it('maps a single hit, or all-equal scores, to 1', () => {
    expect(normalizeMinMax([[7, 3.2]])).to.deep.equal([[7, 1]]);
    expect(normalizeMinMax([[1, 2], [2, 2]])).to.deep.equal([[1, 1], [2, 1]]);
  });
});

describe('normalizeScores', () => {
  it('dispatches on the method and copies for none', () => {
    const hits = [[1, 4], [2, 2]] as const;
    expect(normalizeScores(hits, 'none')).to.deep.equal([[1, 4], [2, 2]]);
    expect(normalizeScores(hits, 'max')).to.deep.equal([[1, 1], [2, 0.5]]);
    expect(normalizeScores(hits, 'min-max')).to.deep.equal([[1, 1], [2, 0]]);
  });
});
