import { expect } from 'chai';
import { DueHeap, type HeapMember } from '../../../src/actors/queue/due-heap.js';

interface Member extends HeapMember {
  name: number;
}

const member = (name: number, dueAt: number): Member => ({ name, dueAt, heapIndex: -1, heapSeq: 0 });

describe('DueHeap', () => {
  it('pops in due order, ties in push order', () => {
    const heap = new DueHeap<Member>();
    [member(1, 30), member(2, 10), member(3, 20), member(4, 10)].forEach((m) => heap.push(m));
    const order: number[] = [];
    for (let m = heap.pop(); m !== undefined; m = heap.pop()) order.push(m.name);
    expect(order).to.deep.equal([2, 4, 3, 1]);
  });

  it('removes and re-keys members anywhere in the heap (checked against a sorted list, 2,000 random steps)', () => {
    let seed = 42;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const heap = new DueHeap<Member>();
    const inHeap: Member[] = [];
    for (let step = 0; step < 2000; step++) {
      const r = rand();
      if (r < 0.45 || inHeap.length === 0) {
        const m = member(step, Math.floor(rand() * 100));
        heap.push(m);
        inHeap.push(m);
      } else if (r < 0.65) {
        const m = inHeap.splice(Math.floor(rand() * inHeap.length), 1)[0] as Member;
        heap.remove(m);
        expect(heap.has(m)).to.equal(false);
      } else if (r < 0.85) {
        const m = inHeap[Math.floor(rand() * inHeap.length)] as Member;
        m.dueAt = Math.floor(rand() * 100);
        heap.update(m);
      } else {
        const top = heap.pop() as Member;
        const minimum = Math.min(...inHeap.map((m) => m.dueAt));
        expect(top.dueAt).to.equal(minimum);
        inHeap.splice(inHeap.indexOf(top), 1);
      }
      expect(heap.size).to.equal(inHeap.length);
    }
    const drained: number[] = [];
    for (let m = heap.pop(); m !== undefined; m = heap.pop()) drained.push(m.dueAt);
    expect(drained).to.deep.equal(inHeap.map((m) => m.dueAt).sort((x, y) => x - y));
  });

  it('rebuild restores order after many keys changed', () => {
    const heap = new DueHeap<Member>();
    const members = Array.from({ length: 50 }, (_, i) => member(i, i));
    members.forEach((m) => heap.push(m));
    members.forEach((m) => (m.dueAt = 100 - m.name));
    heap.rebuild();
    expect(heap.peek()?.name).to.equal(49);
    const drained: number[] = [];
    for (let m = heap.pop(); m !== undefined; m = heap.pop()) drained.push(m.dueAt);
    expect(drained).to.deep.equal([...drained].sort((x, y) => x - y));
  });

  it('ignores removing a member that is not in it', () => {
    const heap = new DueHeap<Member>();
    const inside = member(1, 1);
    heap.push(inside);
    heap.remove(member(2, 0));
    expect(heap.size).to.equal(1);
    expect(heap.peek()).to.equal(inside);
  });
});
