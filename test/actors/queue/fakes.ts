/**
 * Port fakes for the queue tests: a hand-driven clock, an in-memory persistence and processors whose
 * outcomes the test decides. They stand in for the store actor and the pipeline pool, which the queue only
 * sees through these ports.
 */
import type {
  ProcessOutcome,
  QueueClock,
  QueuePersistence,
  QueueProcessor,
  StoredQueueItem,
  TimerHandle,
} from '../../../src/actors/queue/types.js';

/** Lets promise callbacks (and callbacks they schedule) run. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

export class FakeClock implements QueueClock {
  #now: number;
  #nextId = 1;
  readonly #timers = new Map<number, { due: number; fn: () => void }>();

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.#nextId++;
    this.#timers.set(id, { due: this.#now + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle as number);
  }

  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** Moves time forward, firing due timers in order (each at its own due time), settling in between. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await settle();
    while (await this.runNextTimer(target)) {
      // fired one
    }
    this.#now = target;
    await settle();
  }

  /** Fires the earliest timer if it is due by `until` (moving time to it); false when there is none. */
  async runNextTimer(until = Infinity): Promise<boolean> {
    let nextId = -1;
    let nextDue = Infinity;
    for (const [id, timer] of this.#timers) {
      if (timer.due < nextDue || (timer.due === nextDue && id < nextId)) {
        nextId = id;
        nextDue = timer.due;
      }
    }
    if (nextId < 0 || nextDue > until) return false;
    const timer = this.#timers.get(nextId) as { due: number; fn: () => void };
    this.#timers.delete(nextId);
    this.#now = Math.max(this.#now, timer.due);
    timer.fn();
    await settle();
    return true;
  }

  /** Seconds-based convenience. */
  advanceSeconds(seconds: number): Promise<void> {
    return this.advance(seconds * 1000);
  }
}

export class MemoryPersistence implements QueuePersistence {
  readonly rows = new Map<string, StoredQueueItem>();
  upsertCalls = 0;
  removeCalls = 0;
  largestBatch = 0;
  /** Number of upcoming write calls that fail. */
  failWrites = 0;
  #gate: Promise<void> | null = null;

  /** Makes writes wait until the returned function is called. */
  hold(): () => void {
    let release = () => {};
    this.#gate = new Promise<void>((resolve) => (release = resolve));
    return () => {
      this.#gate = null;
      release();
    };
  }

  async loadAll(): Promise<StoredQueueItem[]> {
    return [...this.rows.values()].map((row) => ({ ...row }));
  }

  async upsert(items: StoredQueueItem[]): Promise<void> {
    if (this.#gate !== null) await this.#gate;
    this.#maybeFail();
    this.upsertCalls++;
    this.largestBatch = Math.max(this.largestBatch, items.length);
    for (const item of items) this.rows.set(item.id, { ...item });
  }

  async remove(ids: string[]): Promise<void> {
    if (this.#gate !== null) await this.#gate;
    this.#maybeFail();
    this.removeCalls++;
    this.largestBatch = Math.max(this.largestBatch, ids.length);
    for (const id of ids) this.rows.delete(id);
  }

  #maybeFail(): void {
    if (this.failWrites > 0) {
      this.failWrites--;
      throw new Error('disk full');
    }
  }
}

export interface PendingCall {
  item: StoredQueueItem;
  signal: AbortSignal;
  finish(outcome?: ProcessOutcome): void;
  crash(error: Error): void;
}

/** Each call waits until the test finishes it; records the highest number of calls open at once. */
export class ControlledProcessor implements QueueProcessor {
  readonly calls: PendingCall[] = [];
  readonly open = new Set<PendingCall>();
  maxOpen = 0;

  process(item: StoredQueueItem, signal: AbortSignal): Promise<ProcessOutcome> {
    return new Promise<ProcessOutcome>((resolve, reject) => {
      const call: PendingCall = {
        item,
        signal,
        finish: (outcome = { ok: true }) => {
          this.open.delete(call);
          resolve(outcome);
        },
        crash: (error) => {
          this.open.delete(call);
          reject(error);
        },
      };
      this.calls.push(call);
      this.open.add(call);
      this.maxOpen = Math.max(this.maxOpen, this.open.size);
    });
  }

  /** The open call for a path; throws when there is none, so a test cannot pass by accident. */
  openFor(path: string): PendingCall {
    for (const call of this.open) if (call.item.file_path === path) return call;
    throw new Error(`no open processing call for ${path}`);
  }

  async finishAll(outcome: ProcessOutcome = { ok: true }): Promise<void> {
    for (const call of [...this.open]) call.finish(outcome);
    await settle();
  }
}

/** Answers at once with what `decide` says. */
export class ScriptedProcessor implements QueueProcessor {
  readonly seen: StoredQueueItem[] = [];
  constructor(readonly decide: (item: StoredQueueItem) => ProcessOutcome = () => ({ ok: true })) {}

  async process(item: StoredQueueItem): Promise<ProcessOutcome> {
    this.seen.push(item);
    return this.decide(item);
  }
}
