/**
 * The watcher actor's implementation (it runs in workers/watcher.worker.ts; tests also run it in-process).
 * One chokidar instance per watched directory. It filters and forwards; the queue decides:
 * - natively, chokidar watches folders only, never a file one by one: a watch per file cost an inotify watch and
 *   ~7 KB of memory each, and ~0.13 CPU-ms per file at every start (100,000 files: 101,111 watches, 690 MB, 13
 *   CPU-s; 300,000 would pass the system's default limit). A folder's watch names each file that changes in it;
 *   that file is looked at (one lstat) and reported as added, changed or gone against what was last seen of it,
 *   and chokidar's listings of a folder (its first scan, and again when the folder changes) are where files are
 *   seen with their stats. Polling watches every file, as polling must;
 * - chokidar lists folders with a synchronous lstat per entry (ListingWatcher), and `ignored` takes the paths it
 *   names under the root by a prefix cut: at a start both run once per file of the tree;
 * - `ignored` prunes excluded folders (never watched, never read) and our own data directory;
 * - symbolic links are never followed (lib/no-follow.ts): chokidar does not descend into them, and their `add`
 *   events are dropped;
 * - file events are checked against the filters and the job's file_pattern again (chokidar asks `ignored`
 *   without stats in places, so a file cannot always be told from a folder there);
 * - unlink + add of the same file identity become a `move` (move-pairer.ts), using a stat cache filled from
 *   chokidar's initial scan and later events (a folder that leaves takes its files' entries with it);
 * - events leave in batches (at most every `batchIntervalMs`, at most `maxBatch` each);
 * - when the OS refuses more watches (ENOSPC, EMFILE), at any time (also during chokidar's first scan of a
 *   big tree), the native watcher is closed at once (its watches go back to the system) and the job is
 *   watched by polling instead; one `error` and one `mode` event say so, with how many folders were refused
 *   (the owner then re-scans the job, so nothing changed meanwhile is missed);
 * - unwatching and closing never wait for a watcher to finish its scan: a watcher still scanning is closed
 *   where it is;
 * - a folder created while watched is read again once it has been quiet a moment: chokidar reads a new folder
 *   and only then starts watching it, and files written in between (a burst into a fresh folder) would never be
 *   reported. The read is repeated, with growing pauses, until one starts after chokidar's watch of the folder
 *   is up: from then on the watch sees what the reads could miss. A folder made in that window is handed to
 *   chokidar, which then lists and watches it as any other;
 * - a reconcile's walk of a job's folder is made here (walk()), once its watch is up: synchronously, a folder at a
 *   time, handed over as columns; the main thread, which serves requests, walks nothing at a restart;
 * - a file whose name is not valid UTF-8 cannot be stat'ed by the name chokidar has for it, so chokidar drops it
 *   silently: its folder is read by raw bytes when the OS names such a file (or, polling, when the folder
 *   changes) and each one goes out once as an `add` with U+FFFD for the bad bytes; the queue counts it as failed
 *   (invalid_name), as the scan does.
 */
import { isUtf8 } from 'node:buffer';
import { lstatSync, promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { FSWatcher } from 'chokidar';
import { compileFilePattern, compileFilter, type FilePatternMatcher, type FilterMatcher } from '../../filters/matcher.js';
import { normaliseRelativePath, relativeToRoot } from '../../filters/paths.js';
import type { FilterConfig } from '../../filters/schema.js';
import { walkFoldersSync, type WalkedTree } from '../../filters/walk.js';
import { MovePairer, type FileIdentity, type PairedEvent } from './move-pairer.js';
import { StatCache } from './stat-cache.js';
import { WATCH_LIMIT_CODES, type JobWatchState, type WatcherEvent, type WatcherTuning, type WatchMode, type WatchOptions, type WatchSpec } from './protocol.js';
import { isWithin, OwnDataDir } from '../../lib/paths.js';

/** A file changed this recently, seen while a replacement watcher starts, is reported (it may have been missed). */
export const CATCH_UP_SLACK_MS = 2_000;
/** A new folder is read again once no file has appeared in it for this long (at most NEW_FOLDER_MAX_WAIT_MS). */
const NEW_FOLDER_QUIET_MS = 500;
const NEW_FOLDER_MAX_WAIT_MS = 5_000;
/** Reads of a new folder made before chokidar watches it, each after twice the pause of the one before. */
const NEW_FOLDER_SWEEPS = 8;
/** A walk (walk()) gives way to the thread's events after a slice of this long. */
const WALK_SLICE_MS = 10;

interface Instance {
  watcher: FSWatcher;
  mode: WatchMode;
  ready: boolean;
  /** Closed (or closing): its events are ignored, and whoever waits for it to be ready stops waiting. */
  closed: boolean;
  /** Resolves when chokidar is ready, or when the instance is closed first. */
  settled: Promise<void>;
  /** Resolves `settled` (the instance is closed before it was ready). */
  abandon: () => void;
  /** Watches the OS refused this instance (ENOSPC, EMFILE): counted, reported once. */
  refused: number;
  /**
   * Files seen by chokidar's initial scan that changed at or after this time (ms) are reported: a replacement
   * watcher (the old one may have missed them), or the first watch after a restart (changed since the service
   * started). null: none are.
   */
  catchUpSince: number | null;
}

interface Job {
  spec: WatchSpec;
  pattern: FilePatternMatcher;
  current: Instance | null;
  /** Every instance not yet closed (the current one, one starting to replace it). */
  instances: Set<Instance>;
  reason: string | null;
  /** A replacement (filters changed, fallback to polling) under way. */
  replacing: Promise<void> | null;
  removed: boolean;
  /** The data directory is at or under the root, or the root under it: only then can a path under the root be in it. */
  nearOwnData: boolean;
}

export interface WatcherCoreOptions {
  emit: (events: WatcherEvent[]) => void;
  ownDataDir: string;
  filters: FilterConfig;
  tuning: WatcherTuning;
  now?: () => number;
}

function identity(stats: Stats): FileIdentity {
  return { size: stats.size, mtimeMs: stats.mtimeMs, dev: stats.dev, ino: stats.ino };
}

/** Needs resolving: a '.' or '..' segment, a doubled or a trailing separator. */
const UNRESOLVED = /\/\/|\/\.\.?(?:\/|$)|\/$/;

/**
 * `p` is under `root` as chokidar names paths there (joined onto the resolved root): a prefix cut gives its path
 * relative to the root, with no path.resolve or path.relative. POSIX only; anything else takes the long way.
 */
export function plainUnder(root: string, p: string): boolean {
  return path.sep === '/' && p.length > root.length + 1 && p.charCodeAt(root.length) === 47 && p.startsWith(root) && root !== '/' && !UNRESOLVED.test(p);
}

/** `abs`'s path relative to `root` (null when outside it): a prefix cut when it is `plain` (plainUnder), else resolved. */
function relativeUnder(root: string, abs: string, plain: boolean): string | null {
  return plain ? normaliseRelativePath(abs.slice(root.length + 1), { windows: false }) : relativeToRoot(root, abs);
}

function errorCode(err: unknown): string {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : 'EUNKNOWN';
}

export class WatcherCore {
  readonly #emitBatch: (events: WatcherEvent[]) => void;
  readonly #ownData: OwnDataDir;
  readonly #tuning: WatcherTuning;
  readonly #now: () => number;
  readonly #jobs = new Map<number, Job>();
  /** What each known file looked like, by folder: the unlink half of a rename is paired by it, a folder that leaves reports its files gone. */
  readonly #stats = new StatCache();
  /** Files being looked at after their folder named them (natively), and whether to look again when done. */
  readonly #looking = new Map<string, boolean>();
  readonly #pairer: MovePairer;
  #matcher: FilterMatcher;
  #out: WatcherEvent[] = [];
  #batchTimer: NodeJS.Timeout | null = null;
  #releaseTimer: NodeJS.Timeout | null = null;
  /** Files whose name is not valid UTF-8 already reported (with U+FFFD for the bad bytes). */
  readonly #invalidNames = new Set<string>();
  /** Folders created while watched, waiting to be read again: when they were first seen, and the timer. */
  readonly #newFolders = new Map<string, { since: number; timer: NodeJS.Timeout; sweeps: number }>();
  #releaseAt = Infinity;
  #closed = false;

  constructor(options: WatcherCoreOptions) {
    this.#emitBatch = options.emit;
    this.#ownData = new OwnDataDir(options.ownDataDir);
    this.#tuning = options.tuning;
    this.#now = options.now ?? Date.now;
    this.#matcher = compileFilter(options.filters);
    this.#pairer = new MovePairer({ quietMs: options.tuning.moveQuietMs, maxHoldMs: options.tuning.moveMaxHoldMs });
  }

  async watch(spec: WatchSpec, options: WatchOptions = {}): Promise<JobWatchState> {
    if (this.#closed) throw new Error('watcher is closed');
    if (this.#jobs.has(spec.jobId)) throw new Error(`job ${spec.jobId} is already watched`);
    const pattern = compileFilePattern(spec.filePattern);
    if (!pattern.ok) throw new Error(`job ${spec.jobId}: invalid file_pattern: ${pattern.reason}`);
    const job: Job = {
      spec: { ...spec, root: path.resolve(spec.root) },
      pattern: pattern.matcher,
      current: null,
      instances: new Set(),
      reason: null,
      replacing: null,
      removed: false,
      nearOwnData: this.#ownData.overlaps(path.resolve(spec.root)),
    };
    this.#jobs.set(spec.jobId, job);
    const since = options.catchUpSince ?? (options.catchUp ? this.#now() : null);
    await this.#start(job, 'native', since === null ? null : since - CATCH_UP_SLACK_MS);
    await job.replacing?.catch(() => undefined); // a fallback to polling may have started during the initial scan
    return this.#state(job);
  }

  /** Stops watching a job now: its watchers are closed where they are, even in the middle of their scan. */
  async unwatch(jobId: number): Promise<void> {
    const job = this.#jobs.get(jobId);
    if (!job) return;
    job.removed = true;
    this.#jobs.delete(jobId);
    await Promise.all([...job.instances].map((instance) => this.#closeInstance(job, instance)));
    job.current = null;
  }

  /**
   * A reconcile's walk of a watched job's folder, made here once its watch is up (so a change after a file's stat
   * is the watch's to report), with the filters as they are now and the job's file_pattern (filters/walk.ts).
   * Synchronous calls, a folder at a time, in slices that let this thread's events through: a synchronous lstat
   * costs about a fifth of the CPU of an asynchronous one, and the main thread, which serves requests, walks nothing.
   */
  async walk(jobId: number): Promise<WalkedTree> {
    const job = this.#jobs.get(jobId);
    if (!job) throw new Error(`job ${jobId} is not watched`);
    const tree: WalkedTree = { paths: [], sizes: [], mtimes: [], errors: [] };
    const walk = walkFoldersSync(job.spec.root, {
      matcher: this.#matcher,
      filePattern: job.pattern,
      relativeTo: job.spec.root,
      recursive: job.spec.recursive,
      skipPaths: [this.#ownData.path],
      onError: (error) => tree.errors.push(error),
    });
    let sliceStart = performance.now();
    for (let step = walk.next(); !step.done; step = walk.next()) {
      for (const file of step.value) {
        tree.paths.push(file.path);
        tree.sizes.push(file.size);
        tree.mtimes.push(file.mtimeMs);
      }
      if (performance.now() - sliceStart < WALK_SLICE_MS) continue;
      await new Promise((resolve) => setImmediate(resolve));
      if (job.removed || this.#closed) throw new Error(`job ${jobId} is no longer watched`);
      sliceStart = performance.now();
    }
    return tree;
  }

  /** New filters: new events are judged by them at once; each watch is renewed so folders follow them too. */
  async setFilters(filters: FilterConfig): Promise<void> {
    this.#matcher = compileFilter(filters);
    for (const job of [...this.#jobs.values()]) {
      await job.replacing?.catch(() => undefined);
      if (job.removed || !job.current || job.current.closed) continue;
      await this.#replace(job, job.current.mode);
    }
  }

  states(): JobWatchState[] {
    return [...this.#jobs.values()].map((job) => this.#state(job));
  }

  /** Folders chokidar watches for a job (diagnostics and tests: excluded folders must not be among them). */
  watchedDirectories(jobId: number): string[] {
    const job = this.#jobs.get(jobId);
    if (!job?.current) return [];
    const root = job.spec.root;
    return Object.keys(job.current.watcher.getWatched())
      .map((dir) => path.resolve(dir))
      .filter((dir) => isWithin(root, dir))
      .sort();
  }

  flush(): void {
    if (this.#batchTimer) clearTimeout(this.#batchTimer);
    this.#batchTimer = null;
    while (this.#out.length > 0) {
      const batch = this.#out.length <= this.#tuning.maxBatch ? this.#out : this.#out.slice(0, this.#tuning.maxBatch);
      this.#out = batch === this.#out ? [] : this.#out.slice(batch.length);
      this.#emitBatch(batch);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const jobId of [...this.#jobs.keys()]) await this.unwatch(jobId);
    if (this.#releaseTimer) clearTimeout(this.#releaseTimer);
    this.#releaseTimer = null;
    for (const { timer } of this.#newFolders.values()) clearTimeout(timer);
    this.#newFolders.clear();
    this.#forward(this.#pairer.releaseAll());
    this.flush();
  }

  // ------------------------------------------------------------------------------------------ chokidar

  /** Starts an instance and resolves when it is ready, or when it is closed before (an unwatch, a fallback). */
  async #start(job: Job, mode: WatchMode, catchUpSince: number | null): Promise<Instance> {
    const instance = this.#launch(job, mode, catchUpSince);
    await instance.settled;
    if (!instance.closed) instance.ready = true;
    return instance;
  }

  /**
   * Creates a chokidar instance for the job (it starts scanning at once). A job's first instance is its current
   * one at once; a replacement becomes current only when ready (see #replace).
   */
  #launch(job: Job, mode: WatchMode, catchUpSince: number | null): Instance {
    const poll = this.#tuning.pollIntervalMs;
    let self: Instance | null = null; // chokidar asks `ignored` from its first scan on, before `watch` returns
    const watcher = new ListingWatcher({
      ignored: (p: string, stats?: Stats) => this.#ignored(job, self, mode, p, stats),
      ignoreInitial: false,
      alwaysStat: true,
      followSymlinks: false,
      persistent: true,
      ignorePermissionErrors: true,
      ...(job.spec.recursive ? {} : { depth: 0 }),
      usePolling: mode === 'polling',
      interval: poll,
      binaryInterval: poll,
      atomic: mode === 'native',
    });
    watcher.add(job.spec.root);
    let abandon = (): void => undefined;
    const settled = new Promise<void>((resolve) => {
      abandon = resolve;
      watcher.once('ready', () => resolve());
    });
    const instance: Instance = { watcher, mode, ready: false, closed: false, settled, abandon, refused: 0, catchUpSince };
    self = instance;
    job.instances.add(instance);
    job.current ??= instance; // the first instance of a job is current at once (a replacement only when ready)
    watcher.on('add', (p: string, stats?: Stats) => !instance.closed && this.#onAdd(job, instance, p, stats));
    watcher.on('change', (p: string, stats?: Stats) => !instance.closed && this.#onChange(job, p, stats));
    watcher.on('unlink', (p: string) => !instance.closed && this.#onUnlink(job, p));
    watcher.on('unlinkDir', (p: string) => !instance.closed && this.#onUnlinkDir(job, p));
    watcher.on('addDir', (p: string) => !instance.closed && instance.ready && this.#sweepLater(job, instance, p));
    watcher.on('error', (err: unknown) => this.#onError(job, instance, err));
    watcher.on('raw', (_event: string, rawPath: string, details: unknown) => !instance.closed && instance.ready && this.#onRaw(job, instance, rawPath, details));
    const simulated = this.#tuning.simulateNativeError;
    if (simulated && mode === 'native') {
      // As inotify does when the limit is reached: every folder chokidar tries to watch is refused, from the
      // first scan on.
      watcher.on('addDir', () => {
        const err = Object.assign(new Error(`${simulated}: System limit for number of file watchers reached (simulated)`), { code: simulated });
        setImmediate(() => watcher.emit('error', err));
      });
    }
    return instance;
  }

  /** Closes an instance (idempotent); anyone waiting for it to be ready stops waiting. */
  async #closeInstance(job: Job, instance: Instance): Promise<void> {
    if (instance.closed) return;
    instance.closed = true;
    instance.abandon();
    job.instances.delete(instance);
    await instance.watcher.close().catch(() => undefined);
  }

  /**
   * Starts a new instance, and only once it is ready stops the old one: no change falls between them. With
   * `closeFirst` (the OS refused the old one's watches) the old one is closed at once instead, giving its
   * watches back; the new one is current from its start, and the owner's re-scan covers the gap.
   */
  #replace(job: Job, mode: WatchMode, closeFirst: Instance | null = null, onClosed?: () => void): Promise<void> {
    const run = (async () => {
      if (closeFirst) await this.#closeInstance(job, closeFirst);
      onClosed?.();
      if (job.removed) return;
      const next = this.#launch(job, mode, this.#now() - CATCH_UP_SLACK_MS);
      if (closeFirst) job.current = next;
      await next.settled;
      if (!next.closed) next.ready = true;
      const old = job.current === next ? null : job.current;
      if (job.removed || next.closed) {
        await this.#closeInstance(job, next);
        return;
      }
      job.current = next;
      if (old) await this.#closeInstance(job, old);
    })();
    job.replacing = run.finally(() => {
      if (job.replacing === tracked) job.replacing = null;
    });
    const tracked = job.replacing;
    return tracked;
  }

  #ignored(job: Job, instance: Instance | null, mode: WatchMode, p: string, stats?: Stats): boolean {
    // chokidar asks about every entry it lists: the plain path under the root skips path.resolve and path.relative.
    const plain = plainUnder(job.spec.root, p);
    const abs = plain ? p : path.resolve(p);
    if ((!plain || job.nearOwnData) && this.#ownData.contains(abs)) return true;
    const rel = relativeUnder(job.spec.root, abs, plain);
    if (rel === null) return true;
    if (rel === '') return false;
    if (stats?.isFile() && mode === 'native') {
      // A file in a folder chokidar lists: seen here, never watched by itself (see the header).
      if (instance && !instance.closed && !job.removed && this.#accepts(job, rel)) this.#seen(job, instance, abs, stats);
      return true;
    }
    if (stats?.isFile() || (!stats && this.#stats.has(abs))) return !this.#accepts(job, rel);
    // A folder, or not known yet: prune only what is an excluded folder (name patterns match files too).
    return !this.#matcher.shouldDescend(rel);
  }

  #accepts(job: Job, rel: string): boolean {
    return this.#matcher.isIndexed(rel, 'file') && job.pattern.matches(rel);
  }

  #acceptsPath(job: Job, abs: string): boolean {
    const rel = relativeUnder(job.spec.root, abs, plainUnder(job.spec.root, abs));
    return rel !== null && rel !== '' && this.#accepts(job, rel);
  }

  // ------------------------------------------------------------------------------------------ events

  /** `accepted`: the filters and the job's file_pattern were just asked (#seen). */
  #onAdd(job: Job, instance: Instance, p: string, stats?: Stats, accepted = false): void {
    // A link is never followed (lib/no-follow.ts): chokidar reports it with its own lstat, and it is dropped here.
    if (job.removed || !stats || stats.isSymbolicLink() || !(accepted || this.#acceptsPath(job, p))) return;
    this.#stats.set(p, stats);
    if (!instance.ready) {
      // chokidar's initial scan: files already there. Only those changed since catchUpSince are reported.
      const since = instance.catchUpSince;
      if (since !== null && (stats.ctimeMs >= since || stats.mtimeMs >= since)) this.#push({ type: 'change', jobId: job.spec.jobId, path: p });
      return;
    }
    this.#forward(this.#pairer.add(job.spec.jobId, p, identity(stats), this.#now()));
    if (this.#newFolders.has(path.dirname(p))) this.#sweepLater(job, instance, path.dirname(p));
  }

  /** Reads a new folder again once files stop appearing in it (see the header), each file not yet seen an add. */
  #sweepLater(job: Job, instance: Instance, folder: string, sweeps = 0): void {
    const pending = this.#newFolders.get(folder);
    const since = pending?.since ?? this.#now();
    if (pending) clearTimeout(pending.timer);
    const done = pending?.sweeps ?? sweeps;
    const quiet = NEW_FOLDER_QUIET_MS * 2 ** done;
    const wait = done > 0 ? quiet : Math.max(0, Math.min(quiet, since + NEW_FOLDER_MAX_WAIT_MS - this.#now()));
    const timer = setTimeout(() => {
      this.#newFolders.delete(folder);
      // Whether the watch was up before this read started: then the read and the watch cover everything.
      const watched = watchesFolder(instance.watcher, folder);
      void this.#sweep(job, instance, folder).then(() => {
        if (watched || instance.closed || job.removed || done + 1 >= NEW_FOLDER_SWEEPS || this.#newFolders.has(folder)) return;
        this.#sweepLater(job, instance, folder, done + 1);
      });
    }, wait);
    this.#newFolders.set(folder, { since, timer, sweeps: done });
  }

  /**
   * chokidar's raw events: natively a name in a watched folder (`watchedPath`), polling a path whose stats
   * changed (`curr`). A name holding U+FFFD, or a changed folder when polling, has its folder read for names
   * that are not valid UTF-8 (see the header).
   */
  #onRaw(job: Job, instance: Instance, rawPath: string, details: unknown): void {
    if (job.removed) return;
    const { watchedPath, curr } = (details ?? {}) as { watchedPath?: unknown; curr?: Stats };
    if (typeof watchedPath === 'string') {
      if (rawPath.includes('\uFFFD')) void this.#reportInvalidNames(job, watchedPath);
      else if (rawPath && instance.mode === 'native') void this.#look(job, instance, path.join(watchedPath, rawPath));
    } else if (curr?.isDirectory()) {
      void this.#reportInvalidNames(job, rawPath);
    }
  }

  async #reportInvalidNames(job: Job, folder: string): Promise<void> {
    const entries = await fs.readdir(folder, { withFileTypes: true, encoding: 'buffer' }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isFile() || isUtf8(entry.name)) continue;
      const file = path.join(folder, entry.name.toString());
      if (job.removed || this.#invalidNames.has(file) || !this.#acceptsPath(job, file)) continue;
      this.#invalidNames.add(file);
      this.#push({ type: 'add', jobId: job.spec.jobId, path: file });
    }
  }

  async #sweep(job: Job, instance: Instance, folder: string): Promise<void> {
    void this.#reportInvalidNames(job, folder);
    let entries;
    try {
      entries = await fs.readdir(folder, { withFileTypes: true });
    } catch {
      return; // gone again, or unreadable: chokidar reports what it can
    }
    for (const entry of entries) {
      if (job.removed || instance.closed) return;
      if (entry.isDirectory()) {
        this.#adoptFolder(job, instance, folder, entry.name);
        continue;
      }
      if (!entry.isFile()) continue; // links never
      const file = path.join(folder, entry.name);
      if (this.#stats.has(file)) continue;
      const stats = await fs.lstat(file).catch(() => null);
      if (stats?.isFile() && !this.#stats.has(file)) this.#onAdd(job, instance, file, stats);
    }
  }

  /**
   * A folder a sweep finds in a new folder: chokidar lists it and watches it, with its own sweeps, as soon as chokidar
   * has handled it (it is then in chokidar's entries for its parent). A folder made after chokidar read the new
   * folder and before it watched it is in neither its listing nor its watch, and would never be seen, nor anything
   * written into it later: chokidar is asked to add it. Excluded folders stay pruned; a job that is not recursive
   * watches no folder below its root.
   */
  #adoptFolder(job: Job, instance: Instance, parent: string, name: string): void {
    const folder = path.join(parent, name);
    if (!job.spec.recursive || tracksEntry(instance.watcher, parent, name) || this.#ignored(job, null, instance.mode, folder)) return;
    instance.watcher.add(folder);
  }

  /**
   * Natively, a file seen in a folder's listing: at the first scan, as chokidar's adds were; later, an add when it
   * is new, a change when it is not what was last seen (size, mtime, identity).
   */
  #seen(job: Job, instance: Instance, abs: string, stats: Stats): void {
    if (!instance.ready || !this.#stats.has(abs)) this.#onAdd(job, instance, abs, stats, true);
    else if (!this.#stats.matches(abs, stats)) this.#onChange(job, abs, stats, true);
  }

  /**
   * Natively, a name a folder's watch reported: one lstat tells an add or a change (#seen), a file gone (an
   * unlink), or a file replaced by something else (a change: the indexer finds no file there). Folders are
   * chokidar's. One look per path at a time; a name reported again meanwhile is looked at once more after it.
   */
  async #look(job: Job, instance: Instance, abs: string): Promise<void> {
    if (this.#looking.has(abs)) {
      this.#looking.set(abs, true);
      return;
    }
    this.#looking.set(abs, false);
    try {
      do {
        this.#looking.set(abs, false);
        const stats = await fs.lstat(abs).catch(() => null);
        if (job.removed || instance.closed) return;
        if (stats?.isDirectory() || !this.#acceptsPath(job, abs) || this.#ownData.contains(abs)) continue;
        if (stats === null) {
          if (this.#stats.has(abs)) this.#onUnlink(job, abs);
        } else if (stats.isFile()) {
          this.#seen(job, instance, abs, stats);
        } else if (this.#stats.has(abs)) {
          this.#stats.delete(abs);
          this.#onChange(job, abs, stats);
        }
      } while (this.#looking.get(abs) === true);
    } finally {
      this.#looking.delete(abs);
    }
  }

  #onChange(job: Job, p: string, stats?: Stats, accepted = false): void {
    if (job.removed || !(accepted || this.#acceptsPath(job, p))) return;
    // A file replaced by a link still goes out as a change: the indexer finds a link there and drops the file.
    if (stats && !stats.isSymbolicLink()) this.#stats.set(p, stats);
    if (this.#pairer.change(p, this.#now())) this.#push({ type: 'change', jobId: job.spec.jobId, path: p });
    this.#armRelease();
  }

  #onUnlink(job: Job, p: string): void {
    if (job.removed) return;
    const known = this.#stats.get(p) ?? null;
    this.#stats.delete(p);
    if (!this.#acceptsPath(job, p)) return;
    this.#forward(this.#pairer.unlink(job.spec.jobId, p, known, this.#now()));
  }

  #onUnlinkDir(job: Job, p: string): void {
    if (job.removed) return;
    // Its files first (chokidar reports each folder under it by itself), then the folder.
    for (const file of this.#stats.filesIn(p)) this.#onUnlink(job, file);
    this.#pairer.unlinkDir(job.spec.jobId, p, this.#now());
    this.#armRelease();
  }

  #onError(job: Job, instance: Instance, err: unknown): void {
    const code = errorCode(err);
    if (WATCH_LIMIT_CODES.has(code) && instance.refused > 0) {
      instance.refused++; // the same refusal, for another folder, while the native watcher closes
      return;
    }
    if (job.removed || instance.closed) return;
    const message = err instanceof Error ? err.message : String(err);
    if (WATCH_LIMIT_CODES.has(code) && instance.mode === 'native') {
      // The OS refuses a watch per folder: thousands of these arrive at once. The first one starts the fallback;
      // the others, until the native watcher is closed, are only counted.
      if (instance.refused++ === 0) this.#fallBackToPolling(job, instance, code, message);
      return;
    }
    this.#push({ type: 'error', jobId: job.spec.jobId, path: null, code, message });
  }

  /**
   * The OS refused native watches: the native watcher is closed at once (its watches go back to the system),
   * then one error event (with how many folders were refused) and, once polling is ready, one mode event.
   */
  #fallBackToPolling(job: Job, instance: Instance, code: string, message: string): void {
    const seconds = this.#tuning.pollIntervalMs / 1000;
    const refused = () => `${instance.refused} folder${instance.refused === 1 ? '' : 's'} refused`;
    void this.#replace(job, 'polling', instance, () => {
      job.reason =
        `${code}: the operating system refused more file watches (${refused()}; ${message}); this folder is watched ` +
        `by polling (every ${seconds} s) instead. On Linux raise fs.inotify.max_user_watches (sysctl) and restart to watch natively again.`;
      this.#push({ type: 'error', jobId: job.spec.jobId, path: job.spec.root, code, message: `${message} (${refused()})` });
    }).then(
      () => {
        if (!job.removed && job.reason) this.#push({ type: 'mode', jobId: job.spec.jobId, mode: 'polling', reason: job.reason });
      },
      (e: unknown) => this.#push({ type: 'error', jobId: job.spec.jobId, path: job.spec.root, code: errorCode(e), message: String(e) }),
    );
  }

  /** Paired events go out now; held ones are released by a timer. */
  #forward(events: PairedEvent[]): void {
    for (const event of events) this.#push(event);
    this.#armRelease();
  }

  #armRelease(): void {
    const at = this.#pairer.nextReleaseAt();
    if (at === null || (this.#releaseTimer && this.#releaseAt <= at)) return;
    if (this.#releaseTimer) clearTimeout(this.#releaseTimer);
    this.#releaseAt = at;
    this.#releaseTimer = setTimeout(() => {
      this.#releaseTimer = null;
      this.#releaseAt = Infinity;
      for (const event of this.#pairer.release(this.#now())) this.#push(event);
      this.#armRelease();
    }, Math.max(0, at - this.#now()) + 1);
  }

  #push(event: WatcherEvent): void {
    this.#out.push(event);
    if (this.#out.length >= this.#tuning.maxBatch) this.flush();
    else this.#batchTimer ??= setTimeout(() => this.flush(), this.#tuning.batchIntervalMs);
  }

  #state(job: Job): JobWatchState {
    const instance = job.current;
    return {
      jobId: job.spec.jobId,
      root: job.spec.root,
      mode: instance?.mode ?? 'native',
      ready: instance?.ready ?? false,
      reason: instance?.mode === 'polling' ? job.reason : null,
      directories: this.watchedDirectories(job.spec.jobId).length,
    };
  }
}

/**
 * chokidar, its folder listings stat'ing each entry synchronously. chokidar lists a folder with readdirp, which
 * lstat's every entry asynchronously (`alwaysStat`): at a start, once per file of the tree, on this thread, which
 * does nothing else meanwhile. A synchronous lstat costs about a fifth of the CPU of an asynchronous one (the
 * watcher's start on the 5,412-file Debian tree: ~470 → ~370 CPU-ms). readdirp awaits the stream's `_stat` per
 * entry, so a synchronous one drops in; on Windows readdirp asks for bigint stats and keeps its own. Not public API:
 * without `_stat` the listing stays readdirp's own, only slower (a watcher test fails if this stops holding).
 */
export class ListingWatcher extends FSWatcher {
  override _readdirp(root: string, opts?: Parameters<FSWatcher['_readdirp']>[1]): ReturnType<FSWatcher['_readdirp']> {
    const stream = super._readdirp(root, opts);
    if (stream && process.platform !== 'win32' && typeof (stream as unknown as ListingStream)._stat === 'function') {
      (stream as unknown as ListingStream)._stat = (p) => lstatSync(p);
    }
    return stream;
  }
}

interface ListingStream {
  _stat: (path: string) => Stats | Promise<Stats>;
}

/**
 * Whether chokidar has handled `name` in `parent` (its entries for the folder: the sub-folders it lists, natively;
 * every entry when polling). chokidar 4's map is not public API: without it the answer is "yes", so no folder is
 * added twice, and the watcher test of a folder made inside chokidar's read-then-watch window fails.
 */
export function tracksEntry(watcher: FSWatcher, parent: string, name: string): boolean {
  const watched = (watcher as unknown as { _watched?: unknown })._watched;
  if (!(watched instanceof Map)) return true;
  const entries = watched.get(path.resolve(parent)) as { has?: (item: string) => boolean } | undefined;
  return typeof entries?.has === 'function' ? entries.has(name) : false;
}

/**
 * Whether chokidar watches `folder` itself yet. chokidar 4 registers a folder's watch (its "closer") only once it
 * has read the folder and started the OS watch; the map is not public API, so without it the answer is "not yet"
 * and a new folder is simply read NEW_FOLDER_SWEEPS times (the watcher tests fail if this stops holding).
 */
export function watchesFolder(watcher: FSWatcher, folder: string): boolean {
  const closers = (watcher as unknown as { _closers?: unknown })._closers;
  return closers instanceof Map && closers.has(folder);
}
