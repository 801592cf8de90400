import { expect } from 'chai';
import { windows } from '../../../src/pipeline/embedders/windows.js';

describe('windows', () => {
  it('packs words up to the budget and overlaps by at least the overlap', () => {
    expect(windows(new Array<number>(10).fill(3), 9, 3)).to.deep.equal([
      [0, 2],
      [2, 4],
      [4, 6],
      [6, 8],
      [8, 9],
    ]);
  });

  it('returns no window for no words', () => {
    expect(windows([], 10, 2)).to.deep.equal([]);
  });

  it('always makes progress, even with a word over the budget', () => {
    expect(windows([2, 50, 2], 10, 5)).to.deep.equal([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
  });
});
