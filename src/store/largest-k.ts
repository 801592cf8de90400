/**
 * The k largest scores pushed so far, each with a value carried along (a chunk's sequence number; none for the
 * keyword evaluators, which need only the k-th score), in a binary min-heap: the k-th largest in O(1), a push in
 * O(log k). Replaces sorting every score at every round (the keyword evaluator's cost at 100k files was mostly that
 * and per-document objects). Hand-written: a dozen lines in the inner loop of both searches, with no objects.
 */
export class LargestK {
  readonly #heap: Float64Array;
  readonly #values: Float64Array;
  #size = 0;
  constructor(readonly k: number) {
    this.#heap = new Float64Array(k);
    this.#values = new Float64Array(k);
  }

  /** Pushes a score and its value; a score not above the k-th largest (once there are k) is left out. */
  push(x: number, value = 0): void {
    const h = this.#heap;
    const v = this.#values;
    if (this.#size < this.k) {
      let i = this.#size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (h[parent]! <= x) break;
        h[i] = h[parent]!;
        v[i] = v[parent]!;
        i = parent;
      }
      h[i] = x;
      v[i] = value;
    } else if (x > h[0]!) {
      const n = this.#size;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const child = r < n && h[r]! < h[l]! ? r : l;
        if (h[child]! >= x) break;
        h[i] = h[child]!;
        v[i] = v[child]!;
        i = child;
      }
      h[i] = x;
      v[i] = value;
    }
  }

  /** The k-th largest value pushed, or 0 while fewer than k were. */
  get kth(): number {
    return this.#size >= this.k ? this.#heap[0]! : 0;
  }

  /** The values of the k largest scores pushed (fewer while fewer were), in no particular order. */
  values(): number[] {
    return Array.from(this.#values.subarray(0, this.#size));
  }

  copy(): LargestK {
    const c = new LargestK(this.k);
    c.#heap.set(this.#heap);
    c.#values.set(this.#values);
    c.#size = this.#size;
    return c;
  }
}
