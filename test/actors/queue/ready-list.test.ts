import { expect } from 'chai';
import { ReadyList } from '../../../src/actors/queue/ready-list.js';

describe('ReadyList', () => {
  it('keeps insertion order through adds and deletes anywhere', () => {
    const list = new ReadyList<number>();
    [1, 2, 3, 4, 5].forEach((n) => list.add(n));
    list.add(3); // already there: keeps its place
    expect(list.delete(1)).to.equal(true);
    expect(list.delete(3)).to.equal(true);
    expect(list.delete(5)).to.equal(true);
    expect(list.delete(5)).to.equal(false);
    list.add(6);
    list.add(1);
    expect([...list]).to.deep.equal([2, 4, 6, 1]);
    expect(list.size).to.equal(4);
    expect(list.has(4)).to.equal(true);
    expect(list.has(3)).to.equal(false);
    expect(list.find((n) => n > 4)).to.equal(6);
    expect(list.find((n) => n > 6)).to.equal(undefined);
  });

  it('allows deleting the current member while iterating', () => {
    const list = new ReadyList<number>();
    [1, 2, 3, 4].forEach((n) => list.add(n));
    const seen: number[] = [];
    for (const n of list) {
      seen.push(n);
      if (n % 2 === 0) list.delete(n);
    }
    expect(seen).to.deep.equal([1, 2, 3, 4]);
    expect([...list]).to.deep.equal([1, 3]);
  });

  it('empties completely when drained from the front', () => {
    const list = new ReadyList<number>();
    for (let n = 0; n < 1000; n++) list.add(n);
    const order: number[] = [];
    for (let first = list.find(() => true); first !== undefined; first = list.find(() => true)) {
      order.push(first);
      list.delete(first);
    }
    expect(order).to.deep.equal(Array.from({ length: 1000 }, (_, n) => n));
    expect(list.size).to.equal(0);
    expect([...list]).to.deep.equal([]);
  });
});
