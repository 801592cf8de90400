/**
 * One store call at a time on the embedded engine, interactive calls first. PGlite runs one statement at a time on
 * one thread, and a transaction holds it whole; left to itself it serves waiting calls in arrival order, so during a
 * bulk run a person's search queued behind every file write already waiting (seconds on a loaded machine). Here a
 * search waits for at most the one call running now: interactive calls (searches, reads the API answers) overtake
 * waiting background calls (file writes, queue persistence, index upkeep), and each class keeps its own arrival
 * order, so writes still land in the order they were made.
 *
 * The next call is chosen one event-loop turn after the last one ended (setImmediate), never at once: a call
 * blocks the store's thread (WASM runs synchronously), so the calls sent meanwhile are still messages in the
 * thread's port, delivered in one batch before that turn. Chosen at once, the first of them ran (a write queued
 * before the search) and, its work being synchronous, finished before the next message was even read: calls ran
 * in arrival order and the priority never applied (bench:search's stall run: a search behind four writes and an
 * ANALYZE).
 *
 * A write may still run between two calls of one search (a search is 4–5 calls in a row). Keeping background calls
 * out for 10 ms after each interactive call was tried: with a client searching without pause it starved indexing
 * (the stall run's 5,000 files not indexed after 20 minutes, against 6), so it is not done.
 * Hand-written: the policy is ours, and it is a few lines.
 */
import { performance } from 'node:perf_hooks';
import { CallLog, type CallFigures, type CallPriority, type CallTime, type CallWait } from './call-log.js';

export type { CallPriority };

/** Now, in ms since the epoch with sub-ms precision: comparable between threads (a call is sent on another). */
export const wallClock = (): number => performance.timeOrigin + performance.now();

/** Finished calls remembered to tell what a search waited behind (a search waits behind a few at most). */
const HISTORY = 64;

interface Ran {
  kind: string;
  priority: CallPriority;
  start: number;
  end: number;
}

export class CallGate {
  #busy = false;
  readonly #waiting: Record<CallPriority, (() => void)[]> = { interactive: [], background: [] };
  readonly #log = new CallLog();
  /** The last HISTORY calls, oldest first. */
  readonly #history: Ran[] = [];

  /**
   * Runs `work` when the gate is free and no call of a higher class waits; `kind` names it in the figures. `sentAt`
   * (wallClock() on the sending thread) dates the wait from the send: while a call runs, the store's thread is
   * blocked and the calls sent meanwhile wait in its message port, unseen by the gate until the call ends.
   */
  async run<T>(priority: CallPriority, work: () => Promise<T>, kind = 'call', sentAt = wallClock()): Promise<T> {
    await new Promise<void>((resolve) => {
      this.#waiting[priority].push(resolve);
      if (!this.#busy) this.#next();
    });
    const start = wallClock();
    if (priority === 'interactive') this.#log.waited(this.#waitOf(kind, Math.min(sentAt, start), start));
    try {
      return await work();
    } finally {
      const end = wallClock();
      this.#log.ran(kind, priority, end - start);
      this.#history.push({ kind, priority, start, end });
      if (this.#history.length > HISTORY) this.#history.shift();
      this.#next();
    }
  }

  /** A wait from `from` to `to`: the background calls' own time within it, and the longest of them. */
  #waitOf(kind: string, from: number, to: number): CallWait {
    let backgroundMs = 0;
    let behind: CallTime | null = null;
    for (const ran of this.#history) {
      if (ran.priority !== 'background' || ran.end <= from) continue;
      backgroundMs += Math.min(ran.end, to) - Math.max(ran.start, from);
      if (!behind || behind.ms < ran.end - ran.start) behind = { kind: ran.kind, ms: ran.end - ran.start };
    }
    return { kind, waitedMs: to - from, backgroundMs, behind };
  }

  /** Hands the gate, one turn from now, to the first waiting call of the highest class (or frees it). */
  #next(): void {
    this.#busy = true;
    setImmediate(() => {
      const next = this.#waiting.interactive.shift() ?? this.#waiting.background.shift();
      if (next) next();
      else this.#busy = false;
    });
  }

  /** Calls waiting now, per class (tests, diagnostics). */
  get waiting(): Record<CallPriority, number> {
    return { interactive: this.#waiting.interactive.length, background: this.#waiting.background.length };
  }

  /** What the calls through this gate cost so far, and what interactive calls waited behind. */
  figures(): CallFigures {
    return this.#log.figures();
  }
}
