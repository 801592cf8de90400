/**
 * Walks a directory tree and yields the files a filter lets through: used by initial scans, reconciliation (on the
 * watcher's thread, synchronously: walkFoldersSync) and filter application. Iterative (no recursion, so depth is
 * unbounded), never descends into excluded folders, never follows a symbolic link (lib/no-follow.ts: links below a
 * named folder are skipped, counted in the summary), and reports unreadable entries as values through `onError`;
 * it never throws for file-system conditions.
 * Order is deterministic: depth first, names in code-point order within a folder.
 */
import type { Dirent, Stats } from 'node:fs';
import { lstatSync, promises as fs, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type { FilePatternMatcher, FilterMatcher } from './matcher.js';
import { relativeToRoot } from './paths.js';
import { hasInvalidName, INVALID_NAME_REASON, isWithin } from '../lib/paths.js';

export interface WalkedFile {
  /** Absolute path (under the walked root's spelling; nothing below the root is a link). */
  path: string;
  /** Relative to `relativeTo` (the watched root), POSIX separators, names as on disk. */
  relativePath: string;
  size: number;
  mtimeMs: number;
}

export interface WalkError {
  path: string;
  /**
   * The file-system code (EACCES, ENOENT, ...), 'outside_root', or 'invalid_name': a name that is not valid UTF-8
   * (written by another system or an old tool). Node reads it with U+FFFD in place of the bad bytes, a path no
   * call can open, so the file is reported, never silently left out.
   */
  code: string;
  message: string;
}

/**
 * A whole walk's outcome, for a walk made on another thread (the watcher's, walkFoldersSync) and handed over: the
 * files as columns (one structured clone of three arrays costs far less than one of thousands of objects), and
 * the errors walkFiles would have reported through onError, in order.
 */
export interface WalkedTree {
  paths: string[];
  sizes: number[];
  mtimes: number[];
  errors: WalkError[];
}

export interface WalkOptions {
  /** The filter; without it every file is yielded. */
  matcher?: FilterMatcher;
  /** The watch job's own file_pattern. */
  filePattern?: FilePatternMatcher;
  /** The watched root that filter paths are relative to (default: the walked folder itself). */
  relativeTo?: string;
  /** Walk sub-folders (default true); false yields only the folder's own files. */
  recursive?: boolean;
  /** Absolute paths never walked or yielded, e.g. the service's own data directory. */
  skipPaths?: readonly string[];
  signal?: AbortSignal;
  onError?: (error: WalkError) => void;
  /** Parallel stat calls per folder (default 32). */
  statConcurrency?: number;
}

export interface WalkSummary {
  files: number;
  directories: number;
  excludedDirectories: number;
  excludedFiles: number;
  /** Files the filter accepts but the job's file_pattern does not. */
  patternSkippedFiles: number;
  symlinksSkipped: number;
  errors: number;
  aborted: boolean;
  /** Set when the walk could not start (root missing, not a folder, outside relativeTo). */
  rootError: WalkError | null;
}

interface Candidate {
  abs: string;
  rel: string;
  stats: Stats | null;
}

interface Folder {
  abs: string;
  rel: string;
}

function fsError(p: string, err: unknown): WalkError {
  const code = typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string' ? err.code : 'EUNKNOWN';
  if (code === 'ENOENT' && hasInvalidName(p)) return { path: p, code: 'invalid_name', message: INVALID_NAME_REASON };
  return { path: p, code, message: err instanceof Error ? err.message : String(err) };
}

type StatResult = { ok: true; stats: Stats } | { ok: false; error: WalkError } | { ok: false; link: true };

/** lstat: an entry swapped for a link since its folder was read is skipped like any other link. */
async function statFile(f: Candidate): Promise<StatResult> {
  if (f.stats) return { ok: true, stats: f.stats };
  try {
    return statResult(await fs.lstat(f.abs));
  } catch (err) {
    return { ok: false, error: fsError(f.abs, err) };
  }
}

function statFileSync(f: Candidate): StatResult {
  if (f.stats) return { ok: true, stats: f.stats };
  try {
    return statResult(lstatSync(f.abs));
  } catch (err) {
    return { ok: false, error: fsError(f.abs, err) };
  }
}

const statResult = (stats: Stats): StatResult => (stats.isSymbolicLink() ? { ok: false, link: true } : { ok: true, stats });

const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function isUnknownType(d: Dirent): boolean {
  return !(d.isFile() || d.isDirectory() || d.isSymbolicLink() || d.isBlockDevice() || d.isCharacterDevice() || d.isFIFO() || d.isSocket());
}

/** The files of one folder that the filter (and the job's file_pattern) accept, not yet stat'ed. */
type FolderFiles = Candidate[];

/** An entry whose type the listing did not give (some file systems): its lstat says it. */
class TypedEntry {
  constructor(
    readonly name: string,
    readonly stats: Stats,
  ) {}
  isDirectory(): boolean {
    return this.stats.isDirectory();
  }
  isFile(): boolean {
    return this.stats.isFile();
  }
  isSymbolicLink(): boolean {
    return this.stats.isSymbolicLink();
  }
}

type Entry = Dirent | TypedEntry;

/** `dir`'s entry `name` (a listed name holds no separator; `dir` is resolved): cheaper than path.join per entry. */
const childPath = (dir: string, name: string): string => (dir.endsWith(path.sep) ? dir + name : dir + path.sep + name);

/**
 * What both traversals share (the asynchronous one on the main thread, the synchronous one on the watcher's):
 * the root's checks, and each folder's entries sorted into the files the filters accept and the sub-folders to walk,
 * counting what is left out into the summary. Only the file-system calls differ.
 */
class Traversal {
  readonly #options: WalkOptions;
  readonly #summary: WalkSummary;
  readonly #skip: string[];
  readonly recursive: boolean;

  constructor(options: WalkOptions, summary: WalkSummary) {
    this.#options = options;
    this.#summary = summary;
    this.#skip = (options.skipPaths ?? []).map((p) => path.resolve(p));
    this.recursive = options.recursive ?? true;
  }

  get aborted(): boolean {
    if (this.#options.signal?.aborted) this.#summary.aborted = true;
    return this.#summary.aborted;
  }

  report(e: WalkError): void {
    this.#summary.errors++;
    this.#options.onError?.(e);
  }

  skipped(abs: string): boolean {
    return this.#skip.length > 0 && this.#skip.some((s) => isWithin(s, abs));
  }

  /** The root, unless it is outside relativeTo (reported). */
  root(root: string): Folder | null {
    const abs = path.resolve(root);
    const rel = relativeToRoot(this.#options.relativeTo ?? abs, abs);
    if (rel !== null) return { abs, rel };
    this.#rootFailed({ path: abs, code: 'outside_root', message: `${abs} is not inside ${this.#options.relativeTo}` });
    return null;
  }

  /** The root once stat'ed (following a link the user named): null when it is not a folder to walk. */
  rootChecked(root: Folder, stat: Lstat): Folder | null {
    if ('error' in stat) return this.#rootFailed(fsError(root.abs, stat.error));
    if (!stat.stats.isDirectory()) return this.#rootFailed({ path: root.abs, code: 'ENOTDIR', message: `${root.abs} is not a directory` });
    if (this.skipped(root.abs)) return null;
    if (root.rel !== '' && this.#options.matcher && !this.#options.matcher.shouldDescend(root.rel)) {
      this.#summary.excludedDirectories++;
      return null;
    }
    return root;
  }

  #rootFailed(e: WalkError): null {
    this.#summary.rootError = e;
    this.report(e);
    return null;
  }

  /** A listing's entries, sorted by name, with the ones whose type is unknown and the skipped paths apart. */
  entries(dir: Folder, dirents: Dirent[]): { known: Entry[]; unknown: string[] } {
    this.#summary.directories++;
    dirents.sort(byName);
    const known: Entry[] = [];
    const unknown: string[] = [];
    for (const d of dirents) {
      if (this.#skip.length > 0 && this.skipped(childPath(dir.abs, d.name))) continue;
      if (isUnknownType(d)) unknown.push(d.name);
      else known.push(d);
    }
    return { known, unknown };
  }

  /** An entry whose type the listing did not give (some file systems), lstat'ed; null when it vanished (reported). */
  typed(dir: Folder, name: string, stat: Lstat): Entry | null {
    if ('error' in stat) {
      this.report(fsError(childPath(dir.abs, name), stat.error));
      return null;
    }
    return new TypedEntry(name, stat.stats);
  }

  /** The folder's files the filters accept and its sub-folders to walk (in name order). */
  sort(dir: Folder, entries: Entry[], typed: boolean): { files: FolderFiles; subdirs: Folder[] } {
    const { matcher, filePattern } = this.#options;
    const files: Candidate[] = [];
    const subdirs: Folder[] = [];
    if (typed) entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (e.isSymbolicLink()) {
        this.#summary.symlinksSkipped++;
        continue;
      }
      const isDir = e.isDirectory();
      if (!isDir && !e.isFile()) continue; // sockets, FIFOs and devices are never indexed
      if (isDir && !this.recursive) continue;
      const abs = childPath(dir.abs, e.name);
      const rel = dir.rel === '' ? e.name : `${dir.rel}/${e.name}`;
      if (isDir) {
        if (matcher && !matcher.shouldDescend(rel)) {
          this.#summary.excludedDirectories++;
          continue;
        }
        subdirs.push({ abs, rel });
      } else {
        if (matcher && !matcher.isIndexed(rel, 'file')) {
          this.#summary.excludedFiles++;
          continue;
        }
        if (filePattern && !filePattern.matches(rel)) {
          this.#summary.patternSkippedFiles++;
          continue;
        }
        files.push({ abs, rel, stats: e instanceof TypedEntry ? e.stats : null });
      }
    }
    return { files, subdirs };
  }

  /** A stat's outcome: the file yielded, or counted as a link or reported as an error (vanished since its folder was read). */
  walked(f: Candidate, r: StatResult): WalkedFile | null {
    if (r.ok) {
      this.#summary.files++;
      return { path: f.abs, relativePath: f.rel, size: r.stats.size, mtimeMs: r.stats.mtimeMs };
    }
    if ('link' in r) this.#summary.symlinksSkipped++;
    else {
      this.#summary.errors++;
      this.#options.onError?.(r.error);
    }
    return null;
  }
}

/**
 * The asynchronous traversal: yields, folder by folder, the files the filters accept (with their stats only when
 * a link or an unknown entry type made us ask).
 */
async function* folders(root: string, walk: Traversal): AsyncGenerator<FolderFiles, void, undefined> {
  const named = walk.root(root);
  const start = named && walk.rootChecked(named, await settle(fs.stat(named.abs)));
  const stack: Folder[] = start ? [start] : [];
  while (stack.length > 0) {
    if (walk.aborted) return;
    const dir = stack.pop() as Folder;
    let dirents: Dirent[];
    try {
      dirents = await fs.readdir(dir.abs, { withFileTypes: true });
    } catch (err) {
      walk.report(fsError(dir.abs, err));
      continue;
    }
    const { known, unknown } = walk.entries(dir, dirents);
    for (const name of unknown) {
      // Some file systems do not report entry types: ask lstat (a link is skipped like any other link).
      const entry = walk.typed(dir, name, await settle(fs.lstat(childPath(dir.abs, name))));
      if (entry) known.push(entry);
    }
    const { files, subdirs } = walk.sort(dir, known, unknown.length > 0);
    if (files.length > 0) yield files;
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i] as Folder);
  }
}

/** A stat call's outcome as a value. */
type Lstat = { stats: Stats } | { error: unknown };

const settle = (call: Promise<Stats>): Promise<Lstat> => call.then((stats) => ({ stats }), (error: unknown) => ({ error }));

function attempt(call: () => Stats): Lstat {
  try {
    return { stats: call() };
  } catch (error) {
    return { error };
  }
}

function emptySummary(): WalkSummary {
  return {
    files: 0,
    directories: 0,
    excludedDirectories: 0,
    excludedFiles: 0,
    patternSkippedFiles: 0,
    symlinksSkipped: 0,
    errors: 0,
    aborted: false,
    rootError: null,
  };
}

/** Yields every file under `root` that the filter (and the job's file_pattern) accepts; returns a summary. */
export async function* walkFiles(root: string, options: WalkOptions = {}): AsyncGenerator<WalkedFile, WalkSummary, undefined> {
  const summary = emptySummary();
  const walk = new Traversal(options, summary);
  const concurrency = Math.max(1, options.statConcurrency ?? 32);
  for await (const files of folders(root, walk)) {
    for (let i = 0; i < files.length; i += concurrency) {
      if (walk.aborted) return summary;
      const batch = files.slice(i, i + concurrency);
      const results = await Promise.all(batch.map((f) => statFile(f)));
      for (let j = 0; j < batch.length; j++) {
        const file = walk.walked(batch[j] as Candidate, results[j] as StatResult);
        if (file) yield file;
      }
    }
  }
  return summary;
}

/**
 * The same walk with synchronous calls, a folder at a time: each step lists one folder and lstat's its files (a
 * synchronous lstat costs about a fifth of the CPU of an asynchronous one). For a thread that does nothing else
 * meanwhile (the watcher's: a start-up reconcile's walk, src/actors/watcher/watcher-core.ts), never the main
 * thread; the caller may yield between steps. Yields each folder's files (none for a folder without any);
 * returns the summary. Same files, order, counts and errors as walkFiles.
 */
export function* walkFoldersSync(root: string, options: Omit<WalkOptions, 'statConcurrency'> = {}): Generator<WalkedFile[], WalkSummary, undefined> {
  const summary = emptySummary();
  const walk = new Traversal(options, summary);
  const named = walk.root(root);
  const start = named && walk.rootChecked(named, attempt(() => statSync(named.abs)));
  const stack: Folder[] = start ? [start] : [];
  while (stack.length > 0) {
    if (walk.aborted) return summary;
    const dir = stack.pop() as Folder;
    let dirents: Dirent[];
    try {
      dirents = readdirSync(dir.abs, { withFileTypes: true });
    } catch (err) {
      walk.report(fsError(dir.abs, err));
      continue;
    }
    const { known, unknown } = walk.entries(dir, dirents);
    for (const name of unknown) {
      const entry = walk.typed(dir, name, attempt(() => lstatSync(childPath(dir.abs, name))));
      if (entry) known.push(entry);
    }
    const { files, subdirs } = walk.sort(dir, known, unknown.length > 0);
    const out: WalkedFile[] = [];
    for (const f of files) {
      const file = walk.walked(f, statFileSync(f));
      if (file) out.push(file);
    }
    yield out;
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i] as Folder);
  }
  return summary;
}

/**
 * Counts the files walkFiles would yield, without stat'ing them (folder listings and the filters only): a scan
 * runs it ahead of its walk so that its total is known long before the last file is reached. Folder errors are
 * not reported (the walk reports them). A file that vanishes between the two is counted but not walked: the
 * walk's own count replaces this one when it ends.
 */
export async function countFiles(root: string, options: Omit<WalkOptions, 'onError' | 'statConcurrency'> = {}): Promise<WalkSummary> {
  const summary = emptySummary();
  for await (const files of folders(root, new Traversal(options, summary))) summary.files += files.length;
  return summary;
}
