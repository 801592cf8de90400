/**
 * The indexing queue: debounces file events per path, coalesces them (coalesce.ts), runs at most
 * `maxConcurrency` items at once through the processor, retries failures with exponential backoff, honours
 * the manual and scheduler pause flags, and persists its items in coalesced batches (persist-buffer.ts).
 *
 * Costs: one timer for the earliest due item (a heap of due times), O(log n) per event, O(1) `status()`.
 * docs/queue.md describes the behaviour for users.
 */
import { randomUUID } from 'node:crypto';
import type { QueueApi, QueueOptions } from './api.js';
import { systemClock } from './clock.js';
import { applyEvent, planReinsert, type CoalesceOps } from './coalesce.js';
import { fromStored, ItemTable, toPublic, toStored, type Entry } from './item-table.js';
import { PersistBuffer, type FlushResult } from './persist-buffer.js';
import type {
  ProcessOutcome,
  QueueClock,
  QueueEvent,
  QueueFileEvent,
  QueueItem,
  QueuePersistence,
  QueueProcessor,
  QueueRemovalCause,
  QueueSettings,
  QueueStatus,
  StoredQueueItem,
  TimerHandle,
} from './types.js';
import { checkEvent, checkPersistenceOptions, checkSettings, storedItemProblem } from './validate.js';
import { isWithin } from '../../lib/paths.js';

export type { QueueApi, QueueOptions } from './api.js';

/** Items moved from cooling_down to ready per timer tick, so a burst coming due at once does not hold the loop. */
const PROMOTE_SLICE = 1000;

type Departure =
  | { type: 'queue_item_removed'; cause: QueueRemovalCause }
  | { type: 'queue_item_completed' }
  | { type: 'queue_item_failed'; reason: string };

interface Run {
  readonly entry: Entry;
  readonly controller: AbortController;
  done: Promise<void>;
}

export function createQueue(options: QueueOptions): QueueApi {
  return new Queue(options);
}

class Queue implements QueueApi {
  readonly #processor: QueueProcessor;
  readonly #persistence: QueuePersistence;
  readonly #clock: QueueClock;
  readonly #onEvent: (event: QueueEvent) => void;
  readonly #onError: (error: unknown, context: string) => void;
  readonly #buffer: PersistBuffer<Entry>;
  readonly #table = new ItemTable();
  readonly #busy = new Map<string, Run>(); // path or move destination → the run touching it
  readonly #runs = new Set<Run>(); // in flight, including runs of items removed meanwhile
  #settings: QueueSettings;
  #manual: boolean;
  #scheduler: boolean;
  #timer: TimerHandle | null = null;
  #timerDue = Infinity;
  #state: 'new' | 'starting' | 'running' | 'closing' = 'new';
  #closed: Promise<void> | null = null;

  constructor(options: QueueOptions) {
    this.#settings = checkSettings(options.settings);
    this.#processor = options.processor;
    this.#persistence = options.persistence;
    this.#clock = options.clock ?? systemClock;
    this.#onError = options.onError ?? ((error, context) => console.error(`queue: ${context}:`, error));
    const onEvent = options.onEvent ?? (() => {});
    this.#onEvent = (event) => {
      try {
        onEvent(event);
      } catch (error) {
        this.#onError(error, 'event listener threw');
      }
    };
    this.#manual = options.manuallyPaused ?? false;
    this.#scheduler = options.schedulerPaused ?? false;
    this.#buffer = new PersistBuffer(
      this.#persistence,
      this.#clock,
      checkPersistenceOptions(options.persistenceOptions),
      toStored,
      (error) => this.#onError(error, 'persisting queue items failed'),
    );
  }

  // ------------------------------------------------------------------------------------------ lifecycle

  async start(): Promise<void> {
    if (this.#state !== 'new') throw new Error('queue.start() was already called');
    this.#state = 'starting';
    let loaded: StoredQueueItem[];
    try {
      loaded = await this.#persistence.loadAll();
    } catch (error) {
      this.#state = 'new'; // start() may be tried again
      throw error;
    }
    this.#buffer.markStored(loaded.map((item) => item.id));
    const usable = loaded.filter((item) => {
      const problem = storedItemProblem(item);
      if (problem === null) return true;
      this.#onError(new Error(`${problem}: ${JSON.stringify(item)}`), 'dropped a stored item');
      if (typeof item.id === 'string') this.#buffer.markRemove(item.id);
      return false;
    });
    usable.sort((a, b) => a.enqueued_at - b.enqueued_at);
    // Waiting items first, then the interrupted ones, which are older than any waiting item on their paths.
    for (const item of usable) if (item.status !== 'processing') this.#restoreWaiting(item);
    for (const item of usable) if (item.status === 'processing') this.#restoreInterrupted(item);
    this.#table.sortOldestFirst();
    if (this.#state !== 'starting') return; // closed meanwhile
    this.#state = 'running';
    this.#promoteDue();
    this.#armTimer();
    this.#pump();
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#state = 'closing';
      this.#clearTimer();
      await Promise.all([...this.#runs].map((run) => run.done));
      const flushed = await this.#buffer.close();
      if (!flushed.ok) this.#onError(new Error(flushed.reason), 'final write of queue items failed');
    })();
    return this.#closed;
  }

  flush(): Promise<FlushResult> {
    return this.#buffer.flush();
  }

  // ------------------------------------------------------------------------------------------ events in

  enqueue(event: QueueFileEvent): boolean {
    return this.enqueueMany([event]) === 1;
  }

  enqueueMany(events: readonly QueueFileEvent[]): number {
    if (this.#state === 'new' || this.#state === 'starting') throw new Error('queue.start() must finish before enqueueing');
    if (this.#state === 'closing') return 0;
    const checked = events.map(checkEvent); // all or nothing: check before changing anything
    for (const event of checked) applyEvent(this.#ops, event);
    this.#armTimer();
    return checked.length;
  }

  /** How the coalescing rules edit the queue. */
  readonly #ops: CoalesceOps<Entry> = {
    touching: (path) => this.#table.touching(path),
    add: (path, action, dest, jobId) => {
      const now = this.#clock.now();
      const entry: Entry = {
        id: randomUUID(),
        path,
        action,
        dest,
        status: 'cooling_down',
        enqueuedAt: now,
        lastEventAt: now,
        dueAt: now + this.#cooldownMs(),
        retryCount: 0,
        jobId,
        lastError: null,
        inQueue: true,
        heapIndex: -1,
        heapSeq: 0,
      };
      this.#table.place(entry);
      this.#changed(entry, 'queue_item_added');
    },
    change: (entry, action, dest, restartFor) => {
      this.#table.unindex(entry);
      entry.action = action;
      entry.dest = dest;
      if (restartFor !== undefined) {
        entry.lastEventAt = this.#clock.now();
        entry.dueAt = entry.lastEventAt + this.#cooldownMs();
        entry.retryCount = 0;
        entry.lastError = null;
        if (restartFor.jobId !== null) entry.jobId = restartFor.jobId;
        entry.status = 'cooling_down';
      }
      this.#table.place(entry);
      this.#changed(entry, 'queue_item_updated');
    },
    drop: (entry) => this.#leave(entry, { type: 'queue_item_removed', cause: 'superseded' }),
  };

  // ------------------------------------------------------------------------------------------ pause

  pause(): QueueStatus {
    return this.#setFlags(true, this.#scheduler);
  }

  resume(): QueueStatus {
    return this.#setFlags(false, this.#scheduler);
  }

  setSchedulerPaused(paused: boolean): QueueStatus {
    return this.#setFlags(this.#manual, paused);
  }

  #setFlags(manual: boolean, scheduler: boolean): QueueStatus {
    if (manual !== this.#manual || scheduler !== this.#scheduler) {
      this.#manual = manual;
      this.#scheduler = scheduler;
      const status = this.status();
      this.#onEvent({ type: status.paused ? 'queue_paused' : 'queue_resumed', status });
      this.#pump();
    }
    return this.status();
  }

  // ------------------------------------------------------------------------------------------ reading

  status(): QueueStatus {
    return {
      paused: this.#manual || this.#scheduler,
      manually_paused: this.#manual,
      scheduler_paused: this.#scheduler,
      ...this.#table.counts(),
    };
  }

  items(): QueueItem[] {
    return [...this.#table.entries.values()].map(toPublic);
  }

  get(id: string): StoredQueueItem | undefined {
    const entry = this.#table.entries.get(id);
    return entry === undefined ? undefined : toStored(entry);
  }

  settings(): QueueSettings {
    return { ...this.#settings };
  }

  // ------------------------------------------------------------------------------------------ editing

  remove(id: string): boolean {
    const entry = this.#table.entries.get(id);
    if (entry === undefined) return false;
    this.#leave(entry, { type: 'queue_item_removed', cause: 'request' });
    return true;
  }

  removeWhere(predicate: (item: StoredQueueItem) => boolean): number {
    const doomed = [...this.#table.entries.values()].filter((entry) => predicate(toStored(entry)));
    for (const entry of doomed) this.remove(entry.id);
    return doomed.length;
  }

  removeUnder(directory: string): number {
    const inside = (p: string | null): boolean => p !== null && isWithin(directory, p);
    return this.removeWhere((item) => inside(item.file_path) || inside(item.dest_path));
  }

  updateSettings(changes: Partial<QueueSettings>): QueueSettings {
    const previous = this.#settings;
    this.#settings = checkSettings(previous, changes);
    if (this.#settings.cooldownSeconds !== previous.cooldownSeconds) {
      // Cooldowns count from each item's last event, so they follow the new setting at once. A retry
      // backoff (no last event) is not a cooldown and keeps its time.
      const changed = this.#table.reschedule((entry) =>
        entry.lastEventAt === null ? entry.dueAt : entry.lastEventAt + this.#cooldownMs(),
      );
      for (const entry of changed) this.#buffer.markUpsert(entry.id, entry);
      this.#promoteDue();
      this.#clearTimer();
      this.#armTimer();
    }
    this.#pump();
    return this.settings();
  }

  // ------------------------------------------------------------------------------------------ scheduling

  /** Takes an item out of the queue for good, with the event that says why. */
  #leave(entry: Entry, why: Departure): void {
    if (entry.status === 'processing' && why.type === 'queue_item_removed') {
      for (const run of this.#runs) if (run.entry === entry) run.controller.abort();
    }
    this.#table.delete(entry);
    this.#buffer.markRemove(entry.id);
    this.#onEvent({ ...why, item: toPublic(entry) });
  }

  #promoteDue(): void {
    for (const entry of this.#table.promoteDue(this.#clock.now(), PROMOTE_SLICE)) this.#changed(entry, 'queue_item_updated');
  }

  /** One timer, for the earliest due item. A timer that fires early finds nothing due and re-arms. */
  #armTimer(): void {
    if (this.#state !== 'running') return;
    const due = this.#table.nextDue();
    if (due === undefined || (this.#timer !== null && this.#timerDue <= due)) return;
    this.#clearTimer();
    this.#timerDue = due;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = null;
      this.#timerDue = Infinity;
      this.#promoteDue();
      this.#armTimer(); // at once again if a slice was left due
      this.#pump();
    }, due - this.#clock.now());
  }

  #clearTimer(): void {
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerDue = Infinity;
  }

  /** Starts ready items while there is room. An item whose path is still processing waits its turn. */
  #pump(): void {
    if (this.#state !== 'running' || this.#manual || this.#scheduler) return;
    const isBusy = (path: string) => this.#busy.has(path);
    while (this.#runs.size < this.#settings.maxConcurrency) {
      const next = this.#table.nextStartable(isBusy);
      if (next === undefined) return;
      this.#run(next);
    }
  }

  #run(entry: Entry): void {
    this.#table.startProcessing(entry);
    const run: Run = { entry, controller: new AbortController(), done: Promise.resolve() };
    this.#busy.set(entry.path, run);
    if (entry.dest !== null) this.#busy.set(entry.dest, run);
    this.#runs.add(run);
    this.#changed(entry, 'queue_item_processing');
    const item = toStored(entry);
    run.done = Promise.resolve()
      .then(() => this.#processor.process(item, run.controller.signal))
      .then(
        (outcome) => this.#checkOutcome(outcome, item),
        (error: unknown): ProcessOutcome => {
          this.#onError(error, `processor threw for ${item.file_path}`);
          const message = error instanceof Error ? error.message : String(error);
          return { ok: false, retryable: true, reason: `processor error: ${message}` };
        },
      )
      .then((outcome) => this.#finish(run, outcome));
  }

  /** A processor bug must not wedge the path: a malformed answer counts as a retryable failure. */
  #checkOutcome(outcome: unknown, item: StoredQueueItem): ProcessOutcome {
    if (typeof outcome === 'object' && outcome !== null && 'ok' in outcome) {
      if (outcome.ok === true) return { ok: true };
      if (outcome.ok === false && 'reason' in outcome && typeof outcome.reason === 'string') {
        const retryable = 'retryable' in outcome ? outcome.retryable !== false : true;
        return { ok: false, reason: outcome.reason, retryable };
      }
    }
    this.#onError(new Error(`malformed outcome ${JSON.stringify(outcome)}`), `processor answered badly for ${item.file_path}`);
    return { ok: false, retryable: true, reason: 'processor returned a malformed outcome' };
  }

  #finish(run: Run, outcome: ProcessOutcome): void {
    const { entry } = run;
    this.#runs.delete(run);
    if (this.#busy.get(entry.path) === run) this.#busy.delete(entry.path);
    if (entry.dest !== null && this.#busy.get(entry.dest) === run) this.#busy.delete(entry.dest);
    if (entry.inQueue) this.#settle(entry, outcome); // removed while processing: the outcome no longer matters
    this.#armTimer();
    this.#pump();
  }

  #settle(entry: Entry, outcome: ProcessOutcome): void {
    if (outcome.ok) {
      this.#leave(entry, { type: 'queue_item_completed' });
      return;
    }
    entry.retryCount++;
    entry.lastError = outcome.reason;
    if (!outcome.retryable || entry.retryCount > this.#settings.maxRetries) {
      this.#leave(entry, { type: 'queue_item_failed', reason: outcome.reason });
      return;
    }
    const { retryBaseSeconds, retryMaxSeconds } = this.#settings;
    const delaySeconds = Math.min(retryBaseSeconds * 2 ** (entry.retryCount - 1), retryMaxSeconds);
    this.#table.stopProcessing(entry, 'cooling_down');
    entry.lastEventAt = null;
    entry.dueAt = this.#clock.now() + delaySeconds * 1000;
    this.#reinsert(entry);
  }

  /**
   * Puts back an item whose attempt failed or was interrupted by a restart. Newer waiting items on its paths
   * take precedence (planReinsert); whatever is left of it keeps its id, retry count and due time.
   */
  #reinsert(entry: Entry): void {
    const plan = planReinsert(this.#ops, entry);
    if (plan.keep === null) {
      this.#leave(entry, { type: 'queue_item_removed', cause: 'superseded' });
    } else {
      entry.action = plan.keep.action;
      entry.dest = plan.keep.dest;
      this.#table.place(entry);
      this.#changed(entry, 'queue_item_updated');
    }
    if (plan.alsoIndex !== null) this.#ops.add(plan.alsoIndex, 'index', null, entry.jobId);
  }

  #restoreWaiting(item: StoredQueueItem): void {
    const clash = this.#table.touching(item.file_path) ?? (item.dest_path === null ? undefined : this.#table.touching(item.dest_path));
    if (clash !== undefined) {
      // Only a half-written store gets here; replaying the item as an event keeps the invariant.
      this.#buffer.markRemove(item.id);
      applyEvent(this.#ops, { path: item.file_path, action: item.action, dest: item.dest_path, jobId: item.job_id });
      return;
    }
    const entry = fromStored(item);
    if (entry.lastEventAt !== null && entry.status === 'cooling_down') {
      entry.dueAt = entry.lastEventAt + this.#cooldownMs(); // the cooldown setting may have changed meanwhile
    }
    this.#table.place(entry);
  }

  #restoreInterrupted(item: StoredQueueItem): void {
    const entry = fromStored(item);
    entry.status = 'ready';
    this.#reinsert(entry);
  }

  // ------------------------------------------------------------------------------------------ helpers

  #cooldownMs(): number {
    return this.#settings.cooldownSeconds * 1000;
  }

  #changed(entry: Entry, type: 'queue_item_added' | 'queue_item_updated' | 'queue_item_processing'): void {
    this.#buffer.markUpsert(entry.id, entry);
    this.#onEvent({ type, item: toPublic(entry) });
  }
}
