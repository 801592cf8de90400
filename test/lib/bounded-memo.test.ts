import { expect } from 'chai';
import { memoizeBounded } from '../../src/lib/bounded-memo.js';

describe('memoizeBounded', () => {
  it('answers each key once from the function, then from memory', () => {
    const calls: string[] = [];
    const upper = memoizeBounded((key) => {
      calls.push(key);
      return key.toUpperCase();
    }, 10);
    expect([upper('a'), upper('b'), upper('a'), upper('b')]).to.deep.equal(['A', 'B', 'A', 'B']);
    expect(calls).to.deep.equal(['a', 'b']);
  });

  it('forgets everything once the limit is reached, and keeps answering', () => {
    const calls: string[] = [];
    const length = memoizeBounded((key) => {
      calls.push(key);
      return key.length;
    }, 2);
    expect([length('a'), length('bb'), length('ccc'), length('a'), length('ccc')]).to.deep.equal([1, 2, 3, 1, 3]);
    // 'ccc' found the memory full (a, bb) and cleared it; 'a' was asked again, 'ccc' was still remembered.
    expect(calls).to.deep.equal(['a', 'bb', 'ccc', 'a']);
  });
});
