/**
 * A binary min-heap keyed by due time, whose members remember their own position so that removing one or
 * changing its due time is O(log n). The queue keeps its cooling-down items here and arms a single timer
 * for the top, instead of one timer per item.
 */
export interface HeapMember {
  dueAt: number;
  /** Position in the heap; -1 when not in it. Owned by the heap. */
  heapIndex: number;
  /** Tie-break so items due at the same time come out in the order they were pushed. */
  heapSeq: number;
}

export class DueHeap<T extends HeapMember> {
  readonly #items: T[] = [];
  #seq = 0;

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  has(member: T): boolean {
    return member.heapIndex >= 0 && this.#items[member.heapIndex] === member;
  }

  push(member: T): void {
    member.heapSeq = this.#seq++;
    member.heapIndex = this.#items.length;
    this.#items.push(member);
    this.#up(member.heapIndex);
  }

  pop(): T | undefined {
    const top = this.#items[0];
    if (top !== undefined) this.remove(top);
    return top;
  }

  remove(member: T): void {
    if (!this.has(member)) return;
    const index = member.heapIndex;
    const last = this.#items.pop() as T;
    member.heapIndex = -1;
    if (last === member) return;
    this.#items[index] = last;
    last.heapIndex = index;
    this.#down(index);
    this.#up(last.heapIndex);
  }

  /** Call after changing `member.dueAt`. */
  update(member: T): void {
    if (!this.has(member)) return;
    this.#down(member.heapIndex);
    this.#up(member.heapIndex);
  }

  /** Re-establishes heap order after many due times changed at once (O(n)). */
  rebuild(): void {
    for (let i = (this.#items.length >> 1) - 1; i >= 0; i--) this.#down(i);
  }

  values(): readonly T[] {
    return this.#items;
  }

  #less(a: T, b: T): boolean {
    return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.heapSeq < b.heapSeq);
  }

  #swap(i: number, j: number): void {
    const a = this.#items[i] as T;
    const b = this.#items[j] as T;
    this.#items[i] = b;
    this.#items[j] = a;
    b.heapIndex = i;
    a.heapIndex = j;
  }

  #up(index: number): void {
    let i = index;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(this.#items[i] as T, this.#items[parent] as T)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #down(index: number): void {
    const n = this.#items.length;
    let i = index;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < n && this.#less(this.#items[left] as T, this.#items[smallest] as T)) smallest = left;
      if (right < n && this.#less(this.#items[right] as T, this.#items[smallest] as T)) smallest = right;
      if (smallest === i) break;
      this.#swap(i, smallest);
      i = smallest;
    }
  }
}
