import { expect } from 'chai';
import { windows } from '../../../src/pipeline/embedders/windows.js';

describe('windows', () => {
  const word = (n: number) => ({ start: 0, end: 0, ids: new Array<number>(n).fill(1) });

  it('packs words up to the budget and overlaps by at least the overlap', () => {
    const words = Array.from({ length: 10 }, () => word(3));
    expect(windows(words, 9, 3)).to.deep.equal([
      [0, 2],
      [2, 4],
      [4, 6],
      [6, 8],
      [8, 9],
    ]);
  });

  it('always makes progress, even with a word over the budget', () => {
    expect(windows([word(2), word(50), word(2)], 10, 5)).to.deep.equal([
      [0, 0],
      [1, 1],
      [2, 2],
    ]);
  });
});
