import { expect } from 'chai';
import { normalizeMax } from '../../src/search/normalize.js';

describe('normalizeMax', () => {
  it('divides by the best score, keeping order and ids', () => {
    expect(normalizeMax([[3, 2], [1, 8], [2, 4]])).to.deep.equal([[3, 0.25], [1, 1], [2, 0.5]]);
  });

  it('gives zeros when no score is positive, and nothing for nothing', () => {
    expect(normalizeMax([[1, 0], [2, -0.5]])).to.deep.equal([[1, 0], [2, 0]]);
    expect(normalizeMax([])).to.deep.equal([]);
  });
});
