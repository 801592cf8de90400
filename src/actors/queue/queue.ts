/**
 * The indexing queue: debounces file events per path, coalesces them (coalesce.ts), runs at most
 * `maxConcurrency` items at once through the processor, retries failures with exponential backoff, honours
 * the manual and scheduler pause flags, and persists its items in coalesced batches (persist-buffer.ts).
 *
 * Costs: one timer for the earliest cooldown (a heap of due times), O(log n) per event, O(1) `status()`.
 * docs/queue.md describes the behaviour for users.
 */
import { randomUUID } from 'node:crypto';
import { systemClock } from './clock.js';
import { applyEvent, planReinsert, type CoalesceOps } from './coalesce.js';
import { DueHeap, type HeapMember } from './due-heap.js';
import { PersistBuffer, type FlushResult } from './persist-buffer.js';
import {
  type ProcessOutcome,
  type QueueAction,
  type QueueClock,
  type QueueEvent,
  type QueueFileEvent,
  type QueueItem,
  type QueueItemStatus,
  type QueuePersistence,
  type QueuePersistenceOptions,
  type QueueProcessor,
  type QueueSettings,
  type QueueStatus,
  type StoredQueueItem,
  type TimerHandle,
} from './types.js';
import { checkEvent, checkPersistenceOptions, checkSettings, storedItemProblem } from './validate.js';

/** Items moved from cooling_down to ready per timer tick. */
const PROMOTE_SLICE = 1000;

export interface QueueOptions {
  persistence: QueuePersistence;
  processor: QueueProcessor;
  /** cooldownSeconds, maxConcurrency and maxRetries are required; the retry delays have defaults. */
  settings: Pick<QueueSettings, 'cooldownSeconds' | 'maxConcurrency' | 'maxRetries'> & Partial<QueueSettings>;
  onEvent?: (event: QueueEvent) => void;
  /** Unexpected trouble that must not stop the queue: a throwing processor or listener, a failed write. */
  onError?: (error: unknown, context: string) => void;
  clock?: QueueClock;
  persistenceOptions?: Partial<QueuePersistenceOptions>;
  /** Pause flags to start with (the service keeps the manual flag across restarts, if it wants). */
  manuallyPaused?: boolean;
  schedulerPaused?: boolean;
}

export interface QueueApi {
  /** Loads the persisted items (`processing` comes back `ready`) and starts scheduling. Call once. */
  start(): Promise<void>;
  /** Adds or coalesces one file event. False once the queue is closing. */
  enqueue(event: QueueFileEvent): boolean;
  /** Same for many events; returns how many were taken. */
  enqueueMany(events: readonly QueueFileEvent[]): number;
  /** Manual pause (POST /api/queue/pause); answers the new status. */
  pause(): QueueStatus;
  /** Clears the manual pause; the queue stays paused while the scheduler pauses it. */
  resume(): QueueStatus;
  setSchedulerPaused(paused: boolean): QueueStatus;
  status(): QueueStatus;
  /** All items in the queue, oldest first, in the API's shape. */
  items(): QueueItem[];
  /** One item with its internal fields, or undefined. */
  get(id: string): StoredQueueItem | undefined;
  /** Removes an item; one that is processing has its signal aborted. False when there is no such item. */
  remove(id: string): boolean;
  /** Removes every item the predicate accepts; returns how many. */
  removeWhere(predicate: (item: StoredQueueItem) => boolean): number;
  /** Removes the items whose path (or move destination) lies in `directory`; returns how many. */
  removeUnder(directory: string): number;
  /** Applies settings live; answers the full settings. Throws naming a bad field. */
  updateSettings(changes: Partial<QueueSettings>): QueueSettings;
  settings(): QueueSettings;
  /** Writes pending changes to the persistence port now. */
  flush(): Promise<FlushResult>;
  /** Starts nothing new, waits for the items in flight, writes everything. The queue is done afterwards. */
  close(): Promise<void>;
}

interface Entry extends HeapMember {
  readonly id: string;
  path: string;
  action: QueueAction;
  dest: string | null;
  status: QueueItemStatus;
  readonly enqueuedAt: number; // ms, like every time below
  /** Last event that (re)started the cooldown; null while waiting out a retry backoff. */
  lastEventAt: number | null;
  retryCount: number;
  jobId: number | null;
  lastError: string | null;
  inQueue: boolean;
}

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
  #settings: QueueSettings;
  #manual: boolean;
  #scheduler: boolean;

  readonly #entries = new Map<string, Entry>(); // every item in the queue, oldest first
  readonly #waiting = new Map<string, Entry>(); // path or move destination → the waiting item touching it
  readonly #busy = new Map<string, Run>(); // path or move destination → the run touching it
  readonly #runs = new Set<Run>();
  readonly #cooling = new DueHeap<Entry>();
  readonly #ready = new Set<Entry>(); // in the order they became ready
  #processing = 0;
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
      (entry) => this.#stored(entry),
      (error) => this.#onError(error, 'persisting queue items failed'),
    );
  }

  // ------------------------------------------------------------------------------------------ lifecycle

  async start(): Promise<void> {
    if (this.#state !== 'new') throw new Error('queue.start() was already called');
    this.#state = 'starting';
    const loaded = await this.#persistence.loadAll();
    this.#buffer.markStored(loaded.map((item) => item.id));
    const usable = loaded.filter((item) => {
      const problem = storedItemProblem(item);
      if (problem !== null) this.#onError(new Error(`${problem}: ${JSON.stringify(item)}`), 'dropped a stored item');
      if (problem !== null && typeof item.id === 'string') this.#buffer.markRemove(item.id);
      return problem === null;
    });
    usable.sort((a, b) => a.enqueued_at - b.enqueued_at);
    // Waiting items first, then the interrupted ones, which are older than any waiting item on their paths.
    for (const item of usable) if (item.status !== 'processing') this.#restoreWaiting(item);
    for (const item of usable) if (item.status === 'processing') this.#restoreInterrupted(item);
    const oldestFirst = [...this.#entries.values()].sort((a, b) => a.enqueuedAt - b.enqueuedAt);
    this.#entries.clear();
    for (const entry of oldestFirst) this.#entries.set(entry.id, entry);
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
    touching: (path) => this.#waiting.get(path),
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
      this.#entries.set(entry.id, entry);
      this.#place(entry);
      this.#changed(entry, 'queue_item_added');
    },
    change: (entry, action, dest, restartFor) => {
      this.#unindex(entry);
      entry.action = action;
      entry.dest = dest;
      if (restartFor !== undefined) {
        entry.lastEventAt = this.#clock.now();
        entry.dueAt = entry.lastEventAt + this.#cooldownMs();
        entry.retryCount = 0;
        entry.lastError = null;
        if (restartFor.jobId !== null) entry.jobId = restartFor.jobId;
        this.#ready.delete(entry);
        entry.status = 'cooling_down';
      }
      this.#place(entry);
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
      total_items: this.#entries.size,
      cooling_down: this.#cooling.size,
      ready: this.#ready.size,
      processing: this.#processing,
    };
  }

  items(): QueueItem[] {
    return [...this.#entries.values()].map((entry) => this.#public(entry));
  }

  get(id: string): StoredQueueItem | undefined {
    const entry = this.#entries.get(id);
    return entry === undefined ? undefined : this.#stored(entry);
  }

  settings(): QueueSettings {
    return { ...this.#settings };
  }

  // ------------------------------------------------------------------------------------------ editing

  remove(id: string): boolean {
    const entry = this.#entries.get(id);
    if (entry === undefined) return false;
    this.#leave(entry, { type: 'queue_item_removed', cause: 'request' });
    return true;
  }

  removeWhere(predicate: (item: StoredQueueItem) => boolean): number {
    const doomed = [...this.#entries.values()].filter((entry) => predicate(this.#stored(entry)));
    for (const entry of doomed) this.remove(entry.id);
    return doomed.length;
  }

  removeUnder(directory: string): number {
    const prefix = directory.endsWith('/') || directory.endsWith('\\') ? directory : `${directory}/`;
    const inside = (p: string | null): boolean => p !== null && (p === directory || p.startsWith(prefix));
    return this.removeWhere((item) => inside(item.file_path) || inside(item.dest_path));
  }

  updateSettings(changes: Partial<QueueSettings>): QueueSettings {
    const previous = this.#settings;
    this.#settings = checkSettings(previous, changes);
    if (this.#settings.cooldownSeconds !== previous.cooldownSeconds) {
      // Cooldowns count from each item's last event, so they follow the new setting at once.
      for (const entry of this.#cooling.values()) {
        if (entry.lastEventAt === null) continue; // a retry backoff is not a cooldown
        entry.dueAt = entry.lastEventAt + this.#cooldownMs();
        this.#buffer.markUpsert(entry.id, entry);
      }
      this.#cooling.rebuild();
      this.#promoteDue();
      this.#clearTimer();
      this.#armTimer();
    }
    this.#pump();
    return this.settings();
  }

  // ------------------------------------------------------------------------------------------ scheduling

  /** Puts a waiting item where it belongs: the path index, and the cooling heap or the ready set. */
  #place(entry: Entry): void {
    this.#waiting.set(entry.path, entry);
    if (entry.dest !== null) this.#waiting.set(entry.dest, entry);
    if (entry.status === 'ready') {
      this.#cooling.remove(entry);
      this.#ready.add(entry);
    } else if (this.#cooling.has(entry)) {
      this.#cooling.update(entry);
    } else {
      this.#cooling.push(entry);
    }
  }

  #unindex(entry: Entry): void {
    if (this.#waiting.get(entry.path) === entry) this.#waiting.delete(entry.path);
    if (entry.dest !== null && this.#waiting.get(entry.dest) === entry) this.#waiting.delete(entry.dest);
  }

  /** Takes an item out of the queue for good, with the event that says why. */
  #leave(
    entry: Entry,
    why:
      | { type: 'queue_item_removed'; cause: 'request' | 'superseded' }
      | { type: 'queue_item_completed' }
      | { type: 'queue_item_failed'; reason: string },
  ): void {
    this.#unindex(entry);
    this.#cooling.remove(entry);
    this.#ready.delete(entry);
    if (entry.status === 'processing') {
      this.#processing--;
      for (const run of this.#runs) if (run.entry === entry && why.type === 'queue_item_removed') run.controller.abort();
    }
    entry.inQueue = false;
    this.#entries.delete(entry.id);
    this.#buffer.markRemove(entry.id);
    this.#onEvent({ ...why, item: this.#public(entry) });
  }

  /**
   * Moves due items to ready, at most PROMOTE_SLICE per call so that a burst coming due at once does not
   * hold the event loop: the timer re-arms at once (the top is already due) for the rest.
   */
  #promoteDue(): void {
    const now = this.#clock.now();
    let budget = PROMOTE_SLICE;
    for (let top = this.#cooling.peek(); top !== undefined && top.dueAt <= now && budget-- > 0; top = this.#cooling.peek()) {
      this.#cooling.pop();
      top.status = 'ready';
      this.#ready.add(top);
      this.#changed(top, 'queue_item_updated');
    }
  }

  /** One timer, for the earliest due item. A timer that fires early finds nothing due and re-arms. */
  #armTimer(): void {
    if (this.#state !== 'running') return;
    const top = this.#cooling.peek();
    if (top === undefined || (this.#timer !== null && this.#timerDue <= top.dueAt)) return;
    this.#clearTimer();
    this.#timerDue = top.dueAt;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = null;
      this.#timerDue = Infinity;
      this.#promoteDue();
      this.#armTimer();
      this.#pump();
    }, top.dueAt - this.#clock.now());
  }

  #clearTimer(): void {
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer);
    this.#timer = null;
    this.#timerDue = Infinity;
  }

  /** Starts ready items while there is room. An item whose path is still processing waits its turn. */
  #pump(): void {
    if (this.#state !== 'running' || this.#manual || this.#scheduler) return;
    while (this.#runs.size < this.#settings.maxConcurrency) {
      let next: Entry | undefined;
      for (const entry of this.#ready) {
        if (!this.#busy.has(entry.path) && (entry.dest === null || !this.#busy.has(entry.dest))) {
          next = entry;
          break;
        }
      }
      if (next === undefined) return;
      this.#run(next);
    }
  }

  #run(entry: Entry): void {
    this.#ready.delete(entry);
    this.#unindex(entry);
    entry.status = 'processing';
    this.#processing++;
    const run: Run = { entry, controller: new AbortController(), done: Promise.resolve() };
    this.#busy.set(entry.path, run);
    if (entry.dest !== null) this.#busy.set(entry.dest, run);
    this.#runs.add(run);
    this.#changed(entry, 'queue_item_processing');
    const item = this.#stored(entry);
    run.done = Promise.resolve()
      .then(() => this.#processor.process(item, run.controller.signal))
      .then(
        (outcome) => outcome,
        (error: unknown): ProcessOutcome => {
          this.#onError(error, `processor threw for ${item.file_path}`);
          return { ok: false, retryable: true, reason: `processor error: ${error instanceof Error ? error.message : String(error)}` };
        },
      )
      .then((outcome) => this.#finish(run, outcome));
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
    this.#processing--;
    entry.status = 'cooling_down';
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
      entry.status = 'cooling_down'; // so #leave does not count it as processing
      this.#leave(entry, { type: 'queue_item_removed', cause: 'superseded' });
    } else {
      entry.action = plan.keep.action;
      entry.dest = plan.keep.dest;
      this.#place(entry);
      this.#changed(entry, 'queue_item_updated');
    }
    if (plan.alsoIndex !== null) this.#ops.add(plan.alsoIndex, 'index', null, entry.jobId);
  }

  #restoreWaiting(item: StoredQueueItem): void {
    const clash = this.#waiting.has(item.file_path) || (item.dest_path !== null && this.#waiting.has(item.dest_path));
    if (clash) {
      // Only a half-written store gets here; replaying the item as an event keeps the invariant.
      this.#buffer.markRemove(item.id);
      applyEvent(this.#ops, { path: item.file_path, action: item.action, dest: item.dest_path, jobId: item.job_id });
      return;
    }
    const entry = this.#fromStored(item);
    if (entry.lastEventAt !== null && entry.status === 'cooling_down') {
      entry.dueAt = entry.lastEventAt + this.#cooldownMs(); // the cooldown setting may have changed meanwhile
    }
    this.#entries.set(entry.id, entry);
    this.#place(entry);
  }

  #restoreInterrupted(item: StoredQueueItem): void {
    const entry = this.#fromStored(item);
    entry.status = 'ready';
    this.#entries.set(entry.id, entry);
    this.#reinsert(entry);
  }

  // ------------------------------------------------------------------------------------------ shapes

  #cooldownMs(): number {
    return this.#settings.cooldownSeconds * 1000;
  }

  #changed(entry: Entry, type: 'queue_item_added' | 'queue_item_updated' | 'queue_item_processing'): void {
    this.#buffer.markUpsert(entry.id, entry);
    this.#onEvent({ type, item: this.#public(entry) });
  }

  #public(entry: Entry): QueueItem {
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

  #stored(entry: Entry): StoredQueueItem {
    return {
      ...this.#public(entry),
      job_id: entry.jobId,
      last_error: entry.lastError,
      last_event_at: entry.lastEventAt === null ? null : entry.lastEventAt / 1000,
    };
  }

  #fromStored(item: StoredQueueItem): Entry {
    return {
      id: item.id,
      path: item.file_path,
      action: item.action,
      dest: item.action === 'move' ? item.dest_path : null,
      status: item.status,
      enqueuedAt: item.enqueued_at * 1000,
      lastEventAt: item.last_event_at === null || item.last_event_at === undefined ? null : item.last_event_at * 1000,
      dueAt: item.cooldown_expires_at * 1000,
      retryCount: item.retry_count,
      jobId: item.job_id ?? null,
      lastError: item.last_error ?? null,
      inQueue: true,
      heapIndex: -1,
      heapSeq: 0,
    };
  }
}
