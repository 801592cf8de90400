/**
 * What applying a new filter configuration does to the index, as pure computations plus one walk: which
 * indexed files leave, and which files in watched folders must be queued. The caller (indexing/filter-runner.ts)
 * deletes, indexes and publishes the events.
 */
import { activeLists } from './config.js';
import type { FilterDecision, FilterMatcher } from './matcher.js';
import { compileFilePattern } from './matcher.js';
import { patternKey } from './pattern.js';
import { relativeToRoot } from './paths.js';
import type { FilterConfig } from './schema.js';
import { walkFiles } from './walk.js';
import type { WalkedFile, WalkError, WalkSummary } from './walk.js';

/** An indexed file and the watched root it belongs to (absolute paths). */
export interface IndexedFileRef {
  path: string;
  root: string;
}

export interface LeavingFile extends IndexedFileRef {
  relativePath: string;
  /** Why it leaves (for the event and the log). */
  decision: FilterDecision;
}

/**
 * Whether going from `previous` to `next` can exclude indexed files and whether it can include new ones.
 * Both rules are monotone (more exclude or fewer include patterns never index more), so comparing the
 * active lists as sets is exact: when a direction is false the corresponding work can be skipped, e.g.
 * adding an exclude pattern never requires walking the watched folders.
 */
export function changeDirection(previous: FilterConfig, next: FilterConfig): { mayExclude: boolean; mayInclude: boolean } {
  if (previous.mode !== next.mode) return { mayExclude: true, mayInclude: true };
  const a = activeLists(previous);
  const b = activeLists(next);
  const keys = (l: readonly string[]): Set<string> => new Set(l.map(patternKey));
  const [excA, excB, incA, incB] = [keys(a.exclude), keys(b.exclude), keys(a.include), keys(b.include)];
  const missing = (from: Set<string>, to: Set<string>): boolean => [...from].some((k) => !to.has(k));
  const addedExclude = missing(excB, excA);
  const removedExclude = missing(excA, excB);
  const addedInclude = missing(incB, incA);
  const removedInclude = missing(incA, incB);
  return { mayExclude: addedExclude || removedInclude, mayInclude: removedExclude || addedInclude };
}

/**
 * The indexed files that `next` excludes. With `previous`, only those it included (newly excluded);
 * without, every excluded one (POST /api/filters/apply cleans up whatever is there). Files not inside
 * their stated root are returned apart, untouched.
 */
export function filesLeavingIndex(
  indexed: Iterable<IndexedFileRef>,
  next: FilterMatcher,
  options: { previous?: FilterMatcher } = {},
): { leaving: LeavingFile[]; outsideRoot: IndexedFileRef[] } {
  const leaving: LeavingFile[] = [];
  const outsideRoot: IndexedFileRef[] = [];
  for (const ref of indexed) {
    const rel = relativeToRoot(ref.root, ref.path);
    if (rel === null || rel === '') {
      outsideRoot.push(ref);
      continue;
    }
    if (next.isIndexed(rel, 'file')) continue;
    if (options.previous && !options.previous.isIndexed(rel, 'file')) continue;
    leaving.push({ ...ref, relativePath: rel, decision: next.decide(rel, 'file') });
  }
  return { leaving, outsideRoot };
}

export interface WatchedRootSpec {
  /** Absolute path of the watched folder. */
  path: string;
  /** The job's own file_pattern, if any. */
  filePattern?: string | null;
  recursive?: boolean;
}

export interface QueueCandidate extends WalkedFile {
  root: string;
}

export interface FilesToQueueOptions {
  /** Whether a file (absolute path) is already indexed; such files are not yielded. */
  isIndexed?: (path: string) => boolean;
  /** With it, only files `previous` did not include are yielded (newly included). */
  previous?: FilterMatcher;
  skipPaths?: readonly string[];
  signal?: AbortSignal;
  onError?: (error: WalkError) => void;
  /** Called after each root with its walk summary. */
  onRootDone?: (root: WatchedRootSpec, summary: WalkSummary) => void;
}

/**
 * Walks the watched folders with the new filter and yields the files to queue for indexing: those `next`
 * includes that are not indexed (and, with `previous`, that it did not include). A root whose file_pattern
 * no longer compiles is reported through onError and skipped.
 */
export async function* filesToQueue(
  roots: readonly WatchedRootSpec[],
  next: FilterMatcher,
  options: FilesToQueueOptions = {},
): AsyncGenerator<QueueCandidate, void, undefined> {
  for (const root of roots) {
    const pattern = compileFilePattern(root.filePattern);
    if (!pattern.ok) {
      options.onError?.({ path: root.path, code: 'invalid_pattern', message: `file_pattern: ${pattern.reason}` });
      continue;
    }
    const walk = walkFiles(root.path, {
      matcher: next,
      filePattern: pattern.matcher,
      recursive: root.recursive ?? true,
      skipPaths: options.skipPaths,
      signal: options.signal,
      onError: options.onError,
    });
    for (;;) {
      const step = await walk.next();
      if (step.done) {
        options.onRootDone?.(root, step.value);
        break;
      }
      const file = step.value;
      if (options.previous?.isIndexed(file.relativePath, 'file')) continue;
      if (options.isIndexed?.(file.path)) continue;
      yield { ...file, root: root.path };
    }
    if (options.signal?.aborted) return;
  }
}
