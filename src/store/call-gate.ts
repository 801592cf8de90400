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
import { CallLog, type CallFigures, type CallPriority, type CallTime } from './call-log.js';

export type { CallPriority };

interface Waiting {
  go: () => void;
  since: number;
  /** Own time of the background calls that ran while this one waited, and the longest (interactive calls only). */
  backgroundMs: number;
  behind: CallTime | null;
}

export class CallGate {
  #busy = false;
  readonly #waiting: Record<CallPriority, Waiting[]> = { interactive: [], background: [] };
  readonly #log = new CallLog();

  /** Runs `work` when the gate is free and no call of a higher class waits; `kind` names it in the figures. */
  async run<T>(priority: CallPriority, work: () => Promise<T>, kind = 'call'): Promise<T> {
    const me: Waiting = { go: () => {}, since: performance.now(), backgroundMs: 0, behind: null };
    await new Promise<void>((resolve) => {
      me.go = resolve;
      this.#waiting[priority].push(me);
      if (!this.#busy) this.#next();
    });
    const started = performance.now();
    if (priority === 'interactive') this.#log.waited({ kind, waitedMs: started - me.since, backgroundMs: me.backgroundMs, behind: me.behind });
    try {
      return await work();
    } finally {
      const ran: CallTime = { kind, ms: performance.now() - started };
      this.#log.ran(kind, priority, ran.ms);
      if (priority === 'background') {
        for (const waiting of this.#waiting.interactive) {
          waiting.backgroundMs += ran.ms;
          if (!waiting.behind || waiting.behind.ms < ran.ms) waiting.behind = ran;
        }
      }
      this.#next();
    }
  }

  /** Hands the gate, one turn from now, to the first waiting call of the highest class (or frees it). */
  #next(): void {
    this.#busy = true;
    setImmediate(() => {
      const next = this.#waiting.interactive.shift() ?? this.#waiting.background.shift();
      if (next) next.go();
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
