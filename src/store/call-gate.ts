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
 * A search is several calls in a row (typo lookup, keyword and semantic candidates, the page's rows), each sent when
 * the answer before it arrives: between two of them a waiting write would slip in and the search would wait once
 * per call. So after an interactive call ends, the gate keeps background calls out for a moment (FOLLOW_UP_MS) in
 * case the next call of the same search comes; a person's search costs indexing at most that pause per call.
 * Hand-written: the policy is ours, and it is a few lines.
 */
export type CallPriority = 'interactive' | 'background';

/** How long after an interactive call background calls stay out, for the same search's next call. */
export const FOLLOW_UP_MS = 10;

export class CallGate {
  #busy = false;
  #held: NodeJS.Timeout | null = null;
  #interactiveEnded = -Infinity;
  readonly #waiting: Record<CallPriority, (() => void)[]> = { interactive: [], background: [] };

  constructor(private readonly followUpMs = FOLLOW_UP_MS) {}

  /** Runs `work` when the gate is free and no call of a higher class waits. */
  async run<T>(priority: CallPriority, work: () => Promise<T>): Promise<T> {
    await new Promise<void>((resolve) => {
      this.#waiting[priority].push(resolve);
      if (!this.#busy) this.#next();
      else if (priority === 'interactive' && this.#held) this.#next(); // the follow-up the gate was held for
    });
    try {
      return await work();
    } finally {
      if (priority === 'interactive') this.#interactiveEnded = performance.now();
      this.#next();
    }
  }

  /** Hands the gate, one turn from now, to the first waiting call of the highest class (or holds it, or frees it). */
  #next(): void {
    this.#busy = true;
    if (this.#held) clearTimeout(this.#held);
    this.#held = null;
    setImmediate(() => {
      if (this.#held) return; // held again meanwhile: that timer decides
      const interactive = this.#waiting.interactive.shift();
      if (interactive) return interactive();
      if (this.#waiting.background.length === 0) {
        this.#busy = false;
        return;
      }
      const hold = this.#interactiveEnded + this.followUpMs - performance.now();
      if (hold > 0) this.#held = setTimeout(() => this.#next(), hold);
      else this.#waiting.background.shift()!();
    });
  }

  /** Calls waiting now, per class (tests, diagnostics). */
  get waiting(): Record<CallPriority, number> {
    return { interactive: this.#waiting.interactive.length, background: this.#waiting.background.length };
  }
}
