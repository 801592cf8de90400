/**
 * The queue's bookkeeping: every item by id, the waiting items by the paths they touch, the cooling items
 * in a due-time heap and the ready ones in arrival order, with counts kept as they change (so `status()` is
 * O(1)). No policy here: queue.ts decides, this keeps the indexes consistent.
 */
import { DueHeap, type HeapMember } from './due-heap.js';
import { ReadyList } from './ready-list.js';
import type { QueueAction, QueueItem, QueueItemStatus, QueueStatus, StoredQueueItem } from './types.js';

export interface Entry extends HeapMember {
  readonly id: string;
  path: string;
  action: QueueAction;
  dest: string | null;
  status: QueueItemStatus;
  readonly enqueuedAt: number; // ms, like every time here
  /** Last event that (re)started the cooldown; null while waiting out a retry backoff. */
  lastEventAt: number | null;
  retryCount: number;
  jobId: number | null;
  lastError: string | null;
  /** False once the item has left the queue (a run may still hold it). */
  inQueue: boolean;
}

export class ItemTable {
  /** Every item in the queue, oldest first. */
  readonly entries = new Map<string, Entry>();
  /** Path or move destination → the waiting (cooling or ready) item touching it; at most one. */
  readonly #waiting = new Map<string, Entry>();
  readonly #cooling = new DueHeap<Entry>();
  /** In the order they became ready. */
  readonly #ready = new ReadyList<Entry>();
  #processing = 0;

  touching(path: string): Entry | undefined {
    return this.#waiting.get(path);
  }

  /** Adds a new item, or puts back one that is in the table, where its status says. */
  place(entry: Entry): void {
    if (!this.entries.has(entry.id)) this.entries.set(entry.id, entry);
    this.#waiting.set(entry.path, entry);
    if (entry.dest !== null) this.#waiting.set(entry.dest, entry);
    if (entry.status === 'ready') {
      this.#cooling.remove(entry);
      this.#ready.add(entry);
    } else if (this.#cooling.has(entry)) {
      this.#cooling.update(entry);
    } else {
      this.#ready.delete(entry);
      this.#cooling.push(entry);
    }
  }

  /** Forgets the paths a waiting item touches (before its action or destination changes). */
  unindex(entry: Entry): void {
    if (this.#waiting.get(entry.path) === entry) this.#waiting.delete(entry.path);
    if (entry.dest !== null && this.#waiting.get(entry.dest) === entry) this.#waiting.delete(entry.dest);
  }

  delete(entry: Entry): void {
    this.unindex(entry);
    this.#cooling.remove(entry);
    this.#ready.delete(entry);
    if (entry.status === 'processing') this.#processing--;
    entry.inQueue = false;
    this.entries.delete(entry.id);
  }

  startProcessing(entry: Entry): void {
    this.#ready.delete(entry);
    this.unindex(entry);
    entry.status = 'processing';
    this.#processing++;
  }

  /** A processing item goes back to waiting (retry): it is not counted as processing any more. */
  stopProcessing(entry: Entry, status: 'cooling_down' | 'ready'): void {
    if (entry.status === 'processing') this.#processing--;
    entry.status = status;
  }

  /** Pops up to `limit` cooling items due by `now`, marks them ready and returns them. */
  promoteDue(now: number, limit: number): Entry[] {
    const promoted: Entry[] = [];
    for (let top = this.#cooling.peek(); top !== undefined && top.dueAt <= now && promoted.length < limit; top = this.#cooling.peek()) {
      this.#cooling.pop();
      top.status = 'ready';
      this.#ready.add(top);
      promoted.push(top);
    }
    return promoted;
  }

  nextDue(): number | undefined {
    return this.#cooling.peek()?.dueAt;
  }

  /** The oldest ready item none of whose paths is busy. */
  nextStartable(isBusy: (path: string) => boolean): Entry | undefined {
    return this.#ready.find((entry) => !isBusy(entry.path) && (entry.dest === null || !isBusy(entry.dest)));
  }

  /** Recomputes the due time of every cooling item (O(n)); returns the items whose due time changed. */
  reschedule(dueAt: (entry: Entry) => number): Entry[] {
    const changed = this.#cooling.values().filter((entry) => {
      const due = dueAt(entry);
      if (due === entry.dueAt) return false;
      entry.dueAt = due;
      return true;
    });
    this.#cooling.rebuild();
    return changed;
  }

  sortOldestFirst(): void {
    const sorted = [...this.entries.values()].sort((a, b) => a.enqueuedAt - b.enqueuedAt);
    this.entries.clear();
    for (const entry of sorted) this.entries.set(entry.id, entry);
  }

  counts(): Pick<QueueStatus, 'total_items' | 'cooling_down' | 'ready' | 'processing'> {
    return {
      total_items: this.entries.size,
      cooling_down: this.#cooling.size,
      ready: this.#ready.size,
      processing: this.#processing,
    };
  }
}

export function toPublic(entry: Entry): QueueItem {
  return {
    id: entry.id,
    file_path: entry.path,
    action: entry.action,
    status: entry.status,
    enqueued_at: entry.enqueuedAt / 1000,
    cooldown_expires_at: entry.dueAt / 1000,
    dest_path: entry.dest,
    retry_count: entry.retryCount,
  };
}

export function toStored(entry: Entry): StoredQueueItem {
  return {
    ...toPublic(entry),
    job_id: entry.jobId,
    last_error: entry.lastError,
    last_event_at: entry.lastEventAt === null ? null : entry.lastEventAt / 1000,
  };
}

export function fromStored(item: StoredQueueItem): Entry {
  return {
    id: item.id,
    path: item.file_path,
    action: item.action,
    dest: item.action === 'move' ? item.dest_path : null,
    status: item.status,
    enqueuedAt: item.enqueued_at * 1000,
    lastEventAt: typeof item.last_event_at === 'number' ? item.last_event_at * 1000 : null,
    dueAt: item.cooldown_expires_at * 1000,
    retryCount: item.retry_count,
    jobId: item.job_id ?? null,
    lastError: item.last_error ?? null,
    inQueue: true,
    heapIndex: -1,
    heapSeq: 0,
  };
}
