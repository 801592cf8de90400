/**
 * Coalesces the queue's writes to its persistence port. Changes are remembered per item id (only the latest
 * state of an item is written) and flushed at most `flushIntervalMs` after the first change, or at once when
 * `maxBatchSize` changes are pending; each port call carries at most `maxBatchSize` items. A burst of 10,000
 * events thus costs about 10,000 / maxBatchSize writes, not 10,000.
 *
 * Durability: a crash loses at most the changes of the last interval. Queue items come from watcher events,
 * not client requests, and every start reconciles the watched directories against the index, so a lost item
 * is caught up. Where a client *is* told something succeeded (DELETE of an item), await `flush()` first.
 */
import type { QueueClock, QueuePersistence, QueuePersistenceOptions, StoredQueueItem, TimerHandle } from './types.js';

export type FlushResult = { ok: true } | { ok: false; reason: string };

export class PersistBuffer<E> {
  readonly #port: QueuePersistence;
  readonly #clock: QueueClock;
  readonly #options: QueuePersistenceOptions;
  readonly #snapshot: (entry: E) => StoredQueueItem;
  readonly #onError: (error: unknown) => void;
  /** Items whose latest state is not written yet, by id. */
  #upserts = new Map<string, E>();
  /** Ids to delete from the store. */
  #removes = new Set<string>();
  /** Ids that are (or may be, a write being under way) in the store: only those need a delete. */
  readonly #stored = new Set<string>();
  #timer: TimerHandle | null = null;
  #flushSoon = false;
  #chain: Promise<FlushResult> = Promise.resolve({ ok: true });
  #closed = false;
  /** After a failed write, retry on the interval only (never in a tight loop). */
  #lastFailed = false;

  constructor(
    port: QueuePersistence,
    clock: QueueClock,
    options: QueuePersistenceOptions,
    snapshot: (entry: E) => StoredQueueItem,
    onError: (error: unknown) => void,
  ) {
    this.#port = port;
    this.#clock = clock;
    this.#options = options;
    this.#snapshot = snapshot;
    this.#onError = onError;
  }

  /** Number of changes not yet handed to the port. */
  get pending(): number {
    return this.#upserts.size + this.#removes.size;
  }

  /** Ids that came from the store at start-up. */
  markStored(ids: Iterable<string>): void {
    for (const id of ids) this.#stored.add(id);
  }

  markUpsert(id: string, entry: E): void {
    this.#upserts.set(id, entry);
    this.#schedule();
  }

  markRemove(id: string): void {
    this.#upserts.delete(id);
    if (this.#stored.delete(id)) {
      this.#removes.add(id);
      this.#schedule();
    }
  }

  /** Writes everything pending now (after any write already under way). */
  flush(): Promise<FlushResult> {
    this.#clearTimer();
    const run = this.#chain.then(() => this.#flushOnce());
    this.#chain = run;
    return run;
  }

  /** Final flush; later changes are not scheduled any more (a last `flush()` still writes them). */
  async close(): Promise<FlushResult> {
    this.#closed = true;
    return this.flush();
  }

  #schedule(): void {
    if (this.#closed) return;
    if (this.pending >= this.#options.maxBatchSize && !this.#lastFailed) {
      if (this.#flushSoon) return;
      this.#flushSoon = true;
      queueMicrotask(() => {
        this.#flushSoon = false;
        void this.flush();
      });
    } else if (this.#timer === null && this.pending > 0) {
      this.#timer = this.#clock.setTimeout(() => {
        this.#timer = null;
        void this.flush();
      }, this.#options.flushIntervalMs);
    }
  }

  #clearTimer(): void {
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  async #flushOnce(): Promise<FlushResult> {
    if (this.pending === 0) return { ok: true };
    const upserts = this.#upserts;
    const removes = this.#removes;
    this.#upserts = new Map();
    this.#removes = new Set();
    for (const id of upserts.keys()) this.#stored.add(id);
    let result: FlushResult = { ok: true };
    try {
      // Snapshot one batch at a time: the latest state, and no long pause for a big flush.
      let batch: StoredQueueItem[] = [];
      for (const entry of upserts.values()) {
        batch.push(this.#snapshot(entry));
        if (batch.length === this.#options.maxBatchSize) {
          await this.#port.upsert(batch);
          batch = [];
        }
      }
      if (batch.length > 0) await this.#port.upsert(batch);
      const ids = [...removes];
      for (let i = 0; i < ids.length; i += this.#options.maxBatchSize) {
        const slice = ids.slice(i, i + this.#options.maxBatchSize);
        await this.#port.remove(slice);
      }
    } catch (error) {
      // Put everything back (writes are idempotent) unless something newer took its place.
      for (const [id, entry] of upserts) {
        if (this.#stored.has(id) && !this.#upserts.has(id)) this.#upserts.set(id, entry);
      }
      for (const id of removes) this.#removes.add(id);
      this.#onError(error);
      result = { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
    this.#lastFailed = !result.ok;
    this.#schedule();
    return result;
  }
}
