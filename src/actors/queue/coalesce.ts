/**
 * The coalescing rules: how a file event merges with the items already waiting (cooling down or ready).
 *
 * Model. Each action is a change to the index: `index P` sets P's record from disk, `delete P` drops it,
 * `move P→B` relocates P's record to B (replacing B's) without re-embedding. An item *touches* its path, and
 * a move also its destination. Invariant kept by every rule here: **no path is touched by two waiting items.**
 * Waiting items therefore commute and may be processed in any order, concurrently. (An item that is
 * processing is not "waiting": a new event for its path makes a second, waiting item that the queue starts
 * only after the first has finished.)
 *
 * When a move meets another item on one of its paths and the two cannot be folded into one, the move is
 * *degraded* to `delete P` + `index B`: always correct, it only loses the no-re-embedding shortcut, and only
 * in rare sequences (a file renamed and then edited, or renamed over a file that was itself just moved).
 * The full table is in docs/queue.md.
 */
import type { QueueAction } from './types.js';

/** What the rules need to see of a waiting item. */
export interface PendingView {
  readonly path: string;
  readonly action: QueueAction;
  readonly dest: string | null;
  readonly jobId: number | null;
}

/** The queue's side of the rules: lookups and the three edits they make. */
export interface CoalesceOps<E extends PendingView> {
  /** The waiting item whose path or move destination is `path`, if any (there is at most one). */
  touching(path: string): E | undefined;
  /** A new waiting item, cooling down from now. */
  add(path: string, action: QueueAction, dest: string | null, jobId: number | null): void;
  /**
   * Changes a waiting item's action. `restartFor` set means a new event hit the item itself: its cooldown
   * restarts, its retry count resets, and the event's job id (when given) replaces the item's.
   */
  change(entry: E, action: QueueAction, dest: string | null, restartFor?: { jobId: number | null }): void;
  /** Removes a waiting item that a later event made pointless. */
  drop(entry: E): void;
}

export interface CoalesceEvent {
  path: string;
  action: QueueAction;
  dest: string | null; // non-null exactly for `move`, and different from `path`
  jobId: number | null;
}

/** Merges a new (latest) event into the waiting items. */
export function applyEvent<E extends PendingView>(ops: CoalesceOps<E>, event: CoalesceEvent): void {
  if (event.action === 'move' && event.dest !== null) applyMove(ops, event.path, event.dest, event.jobId);
  else applySingle(ops, event.path, event.action, event.jobId);
}

/** `index P` or `delete P` arriving after whatever waits. */
function applySingle<E extends PendingView>(
  ops: CoalesceOps<E>,
  path: string,
  action: QueueAction,
  jobId: number | null,
): void {
  const waiting = ops.touching(path);
  if (waiting === undefined) {
    ops.add(path, action, null, jobId);
  } else if (waiting.path === path && waiting.action !== 'move') {
    // index→index, delete→index = index; index→delete, delete→delete = delete: the latest event wins.
    ops.change(waiting, action, null, { jobId });
  } else if (waiting.path === path) {
    // P was moved away and something new happened at P.
    if (action === 'delete') {
      // The move already leaves P without a record: keep it.
      ops.change(waiting, 'move', waiting.dest, { jobId });
    } else {
      // A new file at P: the move must not race the new index of P, so degrade it.
      const dest = waiting.dest as string;
      ops.change(waiting, 'index', null, { jobId });
      ops.add(dest, 'index', null, waiting.jobId);
    }
  } else {
    // Y was moved onto P, and P changed (or went) again: Y's record must go, P gets the new event.
    ops.change(waiting, 'delete', null);
    ops.add(path, action, null, jobId);
  }
}

/** `move P→B` arriving after whatever waits. */
function applyMove<E extends PendingView>(ops: CoalesceOps<E>, path: string, dest: string, jobId: number | null): void {
  const atSource = ops.touching(path);
  if (atSource !== undefined && atSource.path === path && atSource.action === 'move' && atSource.dest === dest) {
    ops.change(atSource, 'move', dest, { jobId }); // the same move reported twice
    return;
  }
  if (atSource !== undefined && atSource.path === path) {
    // P changed (or moved away already) before this move: its record is stale, so index B afresh.
    applySingle(ops, path, 'delete', jobId);
    applySingle(ops, dest, 'index', jobId);
    return;
  }
  if (atSource !== undefined) {
    // A chain Y→P then P→B folds into Y→B; P's own older record (replaced by Y's) must still go.
    const origin = atSource.path;
    if (origin === dest) {
      ops.drop(atSource); // moved back where it came from: Y's record is right as it is
    } else {
      clearDestination(ops, dest);
      ops.change(atSource, 'move', dest, { jobId });
    }
    applySingle(ops, path, 'delete', jobId);
    return;
  }
  clearDestination(ops, dest);
  ops.add(path, 'move', dest, jobId);
}

/** A move is about to land on `dest`, replacing its record: whatever waits on `dest` is overwritten. */
function clearDestination<E extends PendingView>(ops: CoalesceOps<E>, dest: string): void {
  const waiting = ops.touching(dest);
  if (waiting === undefined) return;
  if (waiting.path === dest && waiting.action !== 'move') {
    ops.drop(waiting); // its index/delete is moot: the move sets dest's record
  } else if (waiting.path === dest) {
    // dest had moved on to Z first; that move cannot wait behind this one, so Z is indexed afresh.
    const next = waiting.dest as string;
    ops.drop(waiting);
    ops.add(next, 'index', null, waiting.jobId);
  } else {
    // X had been moved onto dest; this move replaces it, so X's record just goes.
    ops.change(waiting, 'delete', null);
  }
}

/**
 * An item goes back to waiting after a failed attempt, or after a restart interrupted it. Its event is
 * *older* than every waiting item, so it may not override them. Returns what is left of it: the action to
 * keep it with (null when newer items make it pointless) and, when a move had to be degraded, the
 * destination that still needs a fresh index (null when none). May edit waiting items (degrading a move).
 */
export function planReinsert<E extends PendingView>(
  ops: CoalesceOps<E>,
  item: { path: string; action: QueueAction; dest: string | null },
): { keep: { action: QueueAction; dest: string | null } | null; alsoIndex: string | null } {
  if (item.action !== 'move' || item.dest === null) {
    return { keep: reinsertSingle(ops, item.path) ? { action: item.action, dest: null } : null, alsoIndex: null };
  }
  if (ops.touching(item.path) === undefined && ops.touching(item.dest) === undefined) {
    return { keep: { action: 'move', dest: item.dest }, alsoIndex: null };
  }
  const keepDelete = reinsertSingle(ops, item.path);
  const indexDest = reinsertSingle(ops, item.dest);
  return { keep: keepDelete ? { action: 'delete', dest: null } : null, alsoIndex: indexDest ? item.dest : null };
}

/** Whether an older single-path item at `path` still has work to do next to the newer waiting items. */
function reinsertSingle<E extends PendingView>(ops: CoalesceOps<E>, path: string): boolean {
  const waiting = ops.touching(path);
  if (waiting === undefined) return true;
  if (waiting.path === path && waiting.action === 'move') {
    // Older change at P, then P moved away: the move carries a stale record, degrade it.
    const dest = waiting.dest as string;
    ops.change(waiting, 'delete', null);
    ops.add(dest, 'index', null, waiting.jobId);
  }
  // A newer index/delete of P, or a move onto P, decides P's record: the older item is superseded.
  return false;
}
