/**
 * The watcher actor's messages. It runs chokidar in its own worker thread (workers/watcher.worker.ts): the
 * main thread calls `WatcherWorkerApi` through comlink and receives file events in batches on a MessagePort.
 * Everything here is plain data.
 */
import type { MessagePort } from 'node:worker_threads';
import type { FilterConfig } from '../../filters/schema.js';
import type { WalkedTree } from '../../filters/walk.js';

/** One watched directory. */
export interface WatchSpec {
  jobId: number;
  root: string;
  recursive: boolean;
  /** The job's own glob on top of the filters (null: every file the filters accept). */
  filePattern: string | null;
}

/** Error codes that mean "the OS will not give us more native watches". */
export const WATCH_LIMIT_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EMFILE']);

/** `native`: the OS's change notifications (inotify, FSEvents, ReadDirectoryChangesW). `polling`: stat calls. */
export type WatchMode = 'native' | 'polling';

/** What the watcher reports. Paths are absolute. */
export type WatcherEvent =
  | { type: 'add'; jobId: number; path: string }
  | { type: 'change'; jobId: number; path: string }
  | { type: 'unlink'; jobId: number; path: string }
  /** A folder left (deleted or renamed away): everything indexed under it leaves too. */
  | { type: 'unlinkDir'; jobId: number; path: string }
  /** A rename or move of a file, possibly into another job's directory (`destJobId`). */
  | { type: 'move'; jobId: number; path: string; dest: string; destJobId: number }
  /** The job's watch mode changed (e.g. to polling after the OS watch limit was hit). */
  | { type: 'mode'; jobId: number; mode: WatchMode; reason: string }
  /** A problem that did not stop the watch (e.g. a folder that cannot be read). */
  | { type: 'error'; jobId: number; path: string | null; code: string; message: string };

export interface JobWatchState {
  jobId: number;
  root: string;
  mode: WatchMode;
  /** The initial scan of the watcher is done: every change from now on is reported. */
  ready: boolean;
  /** Why the mode is what it is (null for native). */
  reason: string | null;
  /** Folders under watch (chokidar's view). */
  directories: number;
}

export interface WatcherTuning {
  /** Events are sent to the main thread at most this often... */
  batchIntervalMs: number;
  /** ... or as soon as this many are pending. */
  maxBatch: number;
  /** Unlink/add halves of a rename are held until the watcher was quiet this long (see move-pairer.ts). */
  moveQuietMs: number;
  moveMaxHoldMs: number;
  /** Stat interval of polling mode. */
  pollIntervalMs: number;
  /**
   * Test seam: native watchers report this error code (as chokidar does when the OS refuses more watches)
   * right after they are ready. Hitting the real inotify limit would take the whole machine's limit down.
   */
  simulateNativeError: string | null;
}

export const DEFAULT_WATCHER_TUNING: WatcherTuning = {
  batchIntervalMs: 150,
  maxBatch: 500,
  moveQuietMs: 400,
  moveMaxHoldMs: 5_000,
  pollIntervalMs: 2_000,
  simulateNativeError: null,
};

export interface WatcherWorkerData {
  /** Where batches of WatcherEvent go (transferred to the worker). */
  events: MessagePort;
  /** Never watched: the service's own data directory. */
  ownDataDir: string;
  filters: FilterConfig;
  tuning: WatcherTuning;
}

/** The message the worker posts on the events port. */
export interface WatcherBatch {
  events: WatcherEvent[];
}

export interface WatchOptions {
  /** Report files that changed since the watch started (a restarted watcher thread may have missed them). */
  catchUp?: boolean;
  /** Report files that changed at or after this time (ms since the epoch; e.g. when the service started). */
  catchUpSince?: number;
}

export interface WatcherWorkerApi {
  /** Starts watching; resolves once the watcher is ready (every later change is reported). */
  watch(spec: WatchSpec, options?: WatchOptions): Promise<JobWatchState>;
  unwatch(jobId: number): Promise<void>;
  /**
   * Walks a watched job's folder with the current filters and its file_pattern, here rather than on the main
   * thread, and hands the files (size, mtime) over: a reconcile's walk, asked for once the watch is up.
   */
  walk(jobId: number): Promise<WalkedTree>;
  /** New filter configuration: applied to new events at once, and every watch is renewed to match it. */
  setFilters(filters: FilterConfig): Promise<void>;
  states(): Promise<JobWatchState[]>;
  /** Sends what is pending now (held rename halves stay held). */
  flush(): Promise<void>;
  close(): Promise<void>;
}
