/**
 * The vector lists' blocks a search read, kept in the store's memory for the next searches (PGlite only), least
 * recently used first out, within a byte budget. A hybrid search reads the blocks of the ~96 lists it probes (~1.5
 * MB at 100 dimensions): read out of PGlite and copied into JavaScript, 1.4 ms of its store thread at 5,000 files
 * and 2.5 at 100,000 (docs/benchmarks/search-latency.md, stop 60), where the whole 100k index's lists are ~34 MB.
 *
 * Only the upkeep changes blocks (vector-lists.ts: a pack rewrites lists' last blocks, a split whole lists, a model
 * no file uses is dropped), and on PGlite no search runs during its call (one call at a time): the upkeep empties
 * the cache before and after each step, so a search never scores a list as it was before a step committed. A
 * server runs searches beside the upkeep's transactions, each in its own snapshot: no cache there (budget 0).
 * Hand-written: a Map in insertion order is the whole of the LRU, and what goes in is ours (whole lists).
 */

/**
 * The budget on PGlite: the lists of a 100,000-file index at 100 dimensions (~34 MB), a third of them at 384. It
 * fills only as searches read lists, and empties at every upkeep step (a bulk run's packs).
 */
export const LIST_CACHE_BYTES = 32 * 1024 * 1024;

/** One list's entries, all its blocks end to end: sequence numbers and packed vectors (layout.ts). */
export interface CachedList {
  seqs: Float64Array;
  vecs: Uint8Array;
}

const bytesOf = (list: CachedList): number => list.seqs.byteLength + list.vecs.byteLength;

export class ListCache {
  readonly #lists = new Map<string, CachedList>();
  #bytes = 0;

  /** `budget`: bytes of entries kept at most (0: nothing is kept). */
  constructor(readonly budget: number) {}

  /** Bytes of entries kept. */
  get bytes(): number {
    return this.#bytes;
  }

  /** A list of the model under `model` (its key), marked as just used; undefined when not kept. */
  get(model: string, list: number): CachedList | undefined {
    const k = `${model}\u0001${list}`;
    const found = this.#lists.get(k);
    if (found) {
      this.#lists.delete(k);
      this.#lists.set(k, found);
    }
    return found;
  }

  /** Keeps a list just read (its buffers its own), the least recently used ones leaving for it. */
  set(model: string, list: number, entries: CachedList): void {
    const size = bytesOf(entries);
    if (size > this.budget) return;
    const k = `${model}\u0001${list}`;
    const old = this.#lists.get(k);
    if (old) {
      this.#lists.delete(k);
      this.#bytes -= bytesOf(old);
    }
    for (const [oldest, kept] of this.#lists) {
      if (this.#bytes + size <= this.budget) break;
      this.#lists.delete(oldest);
      this.#bytes -= bytesOf(kept);
    }
    this.#lists.set(k, entries);
    this.#bytes += size;
  }

  clear(): void {
    this.#lists.clear();
    this.#bytes = 0;
  }
}
