/**
 * Turns chokidar's unlink + add of a rename into one `move`. chokidar reports a rename as two unrelated
 * events, in either order (its `atomic` option holds unlinks for 100 ms, so the add often comes first), and a
 * folder rename as one unlink per file, then one add per file once the new folder has been read. Both halves
 * are held here until the watcher has been quiet for `quietMs` (at most `maxHoldMs`): an unlink and an add of
 * the same file (device and inode; size and mtime where the file system has no inodes) become `move from→to`;
 * whatever found no partner is released as it came.
 *
 * Why not size and mtime too: the stat cache the unlink half comes from can be a write behind (chokidar
 * throttles change events), and a rename must not be missed for that. A freed inode reused by a new file
 * within the window gives a wrong pair; that costs nothing, because a move is a hint the processor checks (the
 * destination must still match the source's indexed size and mtime, else it is indexed afresh).
 *
 * Pure bookkeeping with an injected clock: the caller feeds events and calls `release(now)` on a timer.
 */

export interface FileIdentity {
  size: number;
  mtimeMs: number;
  dev: number;
  ino: number;
}

export type PairedEvent =
  | { type: 'add'; jobId: number; path: string }
  | { type: 'unlink'; jobId: number; path: string }
  | { type: 'unlinkDir'; jobId: number; path: string }
  | { type: 'move'; jobId: number; path: string; dest: string; destJobId: number };

interface Held {
  seq: number;
  at: number;
  kind: 'add' | 'unlink' | 'unlinkDir';
  jobId: number;
  path: string;
  key: string | null;
}

export interface MovePairerOptions {
  /** Release held halves once no event arrived for this long. */
  quietMs: number;
  /** ... and in any case once they are this old (a steady stream of events must not hold them forever). */
  maxHoldMs: number;
}

/** Identity of a file on disk; a rename keeps it. Without an inode (some file systems), size + mtime. */
export function identityKey(id: FileIdentity): string {
  return id.ino > 0 ? `${id.dev}:${id.ino}` : `~:${id.size}:${id.mtimeMs}`;
}

export class MovePairer {
  readonly #options: MovePairerOptions;
  /** Held in arrival order (released in that order); Map keeps insertion order. */
  readonly #held = new Map<number, Held>();
  readonly #unlinks = new Map<string, Held[]>();
  readonly #adds = new Map<string, Held[]>();
  readonly #byPath = new Map<string, Held>();
  #seq = 0;
  #lastEventAt = -Infinity;

  constructor(options: MovePairerOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#held.size;
  }

  /** Something happened on the watcher (any event): postpones the release of held halves. */
  touch(now: number): void {
    this.#lastEventAt = now;
  }

  /**
   * A file left `path`. `identity` is what the file looked like (from the stat cache), null when unknown:
   * then it cannot be paired and is released at once. Returns events to emit now.
   */
  unlink(jobId: number, path: string, identity: FileIdentity | null, now: number): PairedEvent[] {
    this.touch(now);
    // A file created and deleted again before anything was released: only the deletion matters.
    const previous = this.#byPath.get(path);
    if (previous?.kind === 'add') this.#drop(previous);
    if (previous?.kind === 'unlink') return [];
    if (identity === null) return [{ type: 'unlink', jobId, path }];
    const key = identityKey(identity);
    const partner = this.#take(this.#adds, key, path);
    if (partner) return [{ type: 'move', jobId, path, dest: partner.path, destJobId: partner.jobId }];
    this.#hold('unlink', jobId, path, key, now, this.#unlinks);
    return [];
  }

  /** A file appeared at `path` with this identity. Returns events to emit now. */
  add(jobId: number, path: string, identity: FileIdentity, now: number): PairedEvent[] {
    this.touch(now);
    const previous = this.#byPath.get(path);
    if (previous?.kind === 'unlink') {
      // Deleted and back again at the same path: it is simply (re)indexed.
      this.#drop(previous);
      return [{ type: 'add', jobId, path }];
    }
    if (previous?.kind === 'add') return [];
    const key = identityKey(identity);
    const partner = this.#take(this.#unlinks, key, path);
    if (partner) return [{ type: 'move', jobId: partner.jobId, path: partner.path, dest: path, destJobId: jobId }];
    this.#hold('add', jobId, path, key, now, this.#adds);
    return [];
  }

  /**
   * A change at `path`. If its unlink is held, the file is back (the unlink is dropped). If its add is held,
   * the add will report it (a new file is often written after chokidar saw it): false, nothing to emit.
   */
  change(path: string, now: number): boolean {
    this.touch(now);
    const previous = this.#byPath.get(path);
    if (previous?.kind === 'unlink') this.#drop(previous);
    return previous?.kind !== 'add';
  }

  /** A folder left: held like the unlinks of its files, so that their moves are emitted first. */
  unlinkDir(jobId: number, path: string, now: number): void {
    this.touch(now);
    this.#hold('unlinkDir', jobId, path, null, now, null);
  }

  /** Events whose time has come, oldest first: all of them once quiet, else those older than maxHoldMs. */
  release(now: number): PairedEvent[] {
    const quiet = now - this.#lastEventAt >= this.#options.quietMs;
    const out: PairedEvent[] = [];
    for (const held of this.#held.values()) {
      if (!quiet && now - held.at < this.#options.maxHoldMs) break; // later ones are younger
      this.#drop(held);
      out.push({ type: held.kind, jobId: held.jobId, path: held.path });
    }
    return out;
  }

  /** When `release` may have something to do next, or null when nothing is held. */
  nextReleaseAt(): number | null {
    const first = this.#held.values().next();
    if (first.done) return null;
    return Math.min(this.#lastEventAt + this.#options.quietMs, first.value.at + this.#options.maxHoldMs);
  }

  /** Releases everything now (shutdown). */
  releaseAll(): PairedEvent[] {
    return this.release(Infinity);
  }

  #hold(kind: Held['kind'], jobId: number, path: string, key: string | null, now: number, index: Map<string, Held[]> | null): void {
    const held: Held = { seq: this.#seq++, at: now, kind, jobId, path, key };
    this.#held.set(held.seq, held);
    if (kind !== 'unlinkDir') this.#byPath.set(path, held);
    if (index && key !== null) {
      const list = index.get(key);
      if (list) list.push(held);
      else index.set(key, [held]);
    }
  }

  /** The oldest held half with this key at another path (a rename never has the same path on both ends). */
  #take(index: Map<string, Held[]>, key: string, path: string): Held | null {
    const list = index.get(key);
    const found = list?.find((h) => h.path !== path);
    if (!found) return null;
    this.#drop(found);
    return found;
  }

  #drop(held: Held): void {
    this.#held.delete(held.seq);
    if (this.#byPath.get(held.path) === held) this.#byPath.delete(held.path);
    if (held.key === null) return;
    const index = held.kind === 'add' ? this.#adds : held.kind === 'unlink' ? this.#unlinks : null;
    const list = index?.get(held.key);
    if (!list) return;
    const i = list.indexOf(held);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) index!.delete(held.key);
  }
}
