/**
 * What the store's calls cost, kept as they run: per kind of call (`repository.method`) how many and their own time
 * (the store's thread busy on them), the longest background calls, and the longest waits of interactive calls with
 * the call each waited behind. On PGlite one call runs at a time, so a search's wait is another call's own time:
 * these figures say which call to cut when a search was slow (bench:search's stall run prints them). Bounded: one
 * entry per kind, and a few of the longest calls and waits. Hand-written: a few counters, no library needed.
 */
/** Interactive calls are the ones a person waits for; background calls are the indexing side's (store.ts lists them). */
export type CallPriority = 'interactive' | 'background';

/** One call: its kind and its own time, ms. */
export interface CallTime {
  kind: string;
  ms: number;
}

export interface CallWait {
  /** The interactive call that waited. */
  kind: string;
  /** Its whole wait: behind background calls, behind other interactive calls (the other half of the same search), and its turn. */
  waitedMs: number;
  /** Own time of the background calls that ran while it waited: what indexing and upkeep cost this search. */
  backgroundMs: number;
  /** The longest of those background calls (null: none ran). */
  behind: CallTime | null;
}

export interface KindFigures {
  priority: CallPriority;
  calls: number;
  /** Own time of all of them, ms. */
  totalMs: number;
  longestMs: number;
}

export interface CallFigures {
  /** Per kind of call, `repository.method`. */
  kinds: Record<string, KindFigures>;
  /** The longest background calls, longest first. */
  longestBackground: CallTime[];
  /**
   * The interactive calls that waited longest behind background calls, longest first (PGlite; empty on PostgreSQL,
   * whose calls run side by side).
   */
  longestWaits: CallWait[];
}

/** How many of the longest calls and waits are kept. */
export const KEPT = 10;

export class CallLog {
  readonly #kinds = new Map<string, KindFigures>();
  readonly #background: CallTime[] = [];
  readonly #waits: CallWait[] = [];

  /** A call ran for `ms` of its own. */
  ran(kind: string, priority: CallPriority, ms: number): void {
    const figures = this.#kinds.get(kind) ?? { priority, calls: 0, totalMs: 0, longestMs: 0 };
    figures.calls++;
    figures.totalMs += ms;
    figures.longestMs = Math.max(figures.longestMs, ms);
    this.#kinds.set(kind, figures);
    if (priority === 'background') keepLongest(this.#background, { kind, ms }, (c) => c.ms);
  }

  /** An interactive call waited before it ran. */
  waited(wait: CallWait): void {
    keepLongest(this.#waits, wait, (w) => w.backgroundMs);
  }

  figures(): CallFigures {
    const kinds = Object.fromEntries([...this.#kinds].map(([kind, f]) => [kind, { ...f }]));
    return { kinds, longestBackground: this.#background.map((c) => ({ ...c })), longestWaits: this.#waits.map((w) => ({ ...w })) };
  }
}

/** Inserts `item` into `list` (longest first) if it is among the KEPT longest. */
function keepLongest<T>(list: T[], item: T, size: (t: T) => number): void {
  if (list.length === KEPT && size(list[KEPT - 1]!) >= size(item)) return;
  const at = list.findIndex((other) => size(other) < size(item));
  list.splice(at === -1 ? list.length : at, 0, item);
  if (list.length > KEPT) list.pop();
}
