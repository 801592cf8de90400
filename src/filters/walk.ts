/**
 * Walks a directory tree and yields the files a filter lets through: used by initial scans, start-up
 * reconciliation and filter application. Iterative (no recursion, so depth is unbounded), never descends
 * into excluded folders, never follows a symbolic link (lib/no-follow.ts: links below a named folder are
 * skipped, counted in the summary), and reports unreadable entries as values through `onError`; it never
 * throws for file-system conditions.
 * Order is deterministic: depth first, names in code-point order within a folder.
 */
import type { Dirent, Stats } from 'node:fs';
import { promises as fs } from 'node:fs';
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
    const stats = await fs.lstat(f.abs);
    return stats.isSymbolicLink() ? { ok: false, link: true } : { ok: true, stats };
  } catch (err) {
    return { ok: false, error: fsError(f.abs, err) };
  }
}

const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function isUnknownType(d: Dirent): boolean {
  return !(d.isFile() || d.isDirectory() || d.isSymbolicLink() || d.isBlockDevice() || d.isCharacterDevice() || d.isFIFO() || d.isSocket());
}

/** The files of one folder that the filter (and the job's file_pattern) accept, not yet stat'ed. */
type FolderFiles = Candidate[];

/**
 * The traversal both walks share: yields, folder by folder, the files the filters accept (with their stats only
 * when a link or an unknown entry type made us ask). Counts what it leaves out into `summary`.
 */
async function* folders(root: string, options: WalkOptions, summary: WalkSummary): AsyncGenerator<FolderFiles, void, undefined> {
  const report = (e: WalkError): void => {
    summary.errors++;
    options.onError?.(e);
  };
  const { matcher, filePattern, signal } = options;
  const recursive = options.recursive ?? true;
  const skip = (options.skipPaths ?? []).map((p) => path.resolve(p));
  const skipped = (abs: string): boolean => skip.some((s) => isWithin(s, abs));

  const rootAbs = path.resolve(root);
  const rootRel = relativeToRoot(options.relativeTo ?? rootAbs, rootAbs);
  const fail = (e: WalkError): void => {
    summary.rootError = e;
    report(e);
  };
  if (rootRel === null) return fail({ path: rootAbs, code: 'outside_root', message: `${rootAbs} is not inside ${options.relativeTo}` });
  let rootStats: Stats;
  try {
    rootStats = await fs.stat(rootAbs);
  } catch (err) {
    return fail(fsError(rootAbs, err));
  }
  if (!rootStats.isDirectory()) return fail({ path: rootAbs, code: 'ENOTDIR', message: `${rootAbs} is not a directory` });
  if (skipped(rootAbs)) return;
  if (rootRel !== '' && matcher && !matcher.shouldDescend(rootRel)) {
    summary.excludedDirectories++;
    return;
  }


  const stack: { abs: string; rel: string }[] = [{ abs: rootAbs, rel: rootRel }];
  while (stack.length > 0) {
    if (signal?.aborted) {
      summary.aborted = true;
      return;
    }
    const dir = stack.pop() as { abs: string; rel: string };
    const entries: Dirent[] = [];
    try {
      const handle = await fs.opendir(dir.abs);
      for await (const d of handle) entries.push(d);
    } catch (err) {
      report(fsError(dir.abs, err));
      continue;
    }
    summary.directories++;
    entries.sort(byName);

    const files: Candidate[] = [];
    const subdirs: { abs: string; rel: string }[] = [];
    for (const d of entries) {
      const abs = path.join(dir.abs, d.name);
      const rel = dir.rel === '' ? d.name : `${dir.rel}/${d.name}`;
      if (skip.length > 0 && skipped(abs)) continue;
      let stats: Stats | null = null;
      let isDir = d.isDirectory();
      let isFile = d.isFile();
      if (d.isSymbolicLink()) {
        summary.symlinksSkipped++;
        continue;
      }
      if (isUnknownType(d)) {
        // Some file systems do not report entry types: ask lstat (a link is skipped like any other link).
        try {
          stats = await fs.lstat(abs);
        } catch (err) {
          report(fsError(abs, err)); // the entry vanished
          continue;
        }
        if (stats.isSymbolicLink()) {
          summary.symlinksSkipped++;
          continue;
        }
        isDir = stats.isDirectory();
        isFile = stats.isFile();
      }
      if (isDir) {
        if (!recursive) continue;
        if (matcher && !matcher.shouldDescend(rel)) {
          summary.excludedDirectories++;
          continue;
        }
        subdirs.push({ abs, rel });
      } else if (isFile) {
        if (matcher && !matcher.isIndexed(rel, 'file')) {
          summary.excludedFiles++;
          continue;
        }
        if (filePattern && !filePattern.matches(rel)) {
          summary.patternSkippedFiles++;
          continue;
        }
        files.push({ abs, rel, stats });
      }
      // Sockets, FIFOs and devices are never indexed.
    }
    if (files.length > 0) yield files;
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i] as { abs: string; rel: string });
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
  const concurrency = Math.max(1, options.statConcurrency ?? 32);
  for await (const files of folders(root, options, summary)) {
    for (let i = 0; i < files.length; i += concurrency) {
      if (options.signal?.aborted) {
        summary.aborted = true;
        return summary;
      }
      const batch = files.slice(i, i + concurrency);
      const results = await Promise.all(batch.map((f) => statFile(f)));
      for (let j = 0; j < batch.length; j++) {
        const f = batch[j] as Candidate;
        const r = results[j] as StatResult;
        if (!r.ok) {
          if ('link' in r) summary.symlinksSkipped++;
          else {
            summary.errors++;
            options.onError?.(r.error); // vanished or unreadable since the folder was read
          }
          continue;
        }
        summary.files++;
        yield { path: f.abs, relativePath: f.rel, size: r.stats.size, mtimeMs: r.stats.mtimeMs };
      }
    }
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
  for await (const files of folders(root, options, summary)) summary.files += files.length;
  return summary;
}
