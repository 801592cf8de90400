/**
 * Brings the index in line with the filter configuration, in one indexing run of kind
 * 'filters': indexed files the filter excludes leave the index (file_removed, reason 'excluded'), then the files
 * in watched folders that it includes and that are not indexed yet are indexed (file_indexed, ...).
 *
 * Which folder a file is judged from: the deepest watched folder containing it, as scans judge it. A file indexed
 * outside every watched folder (through POST /api/index/*) has no watched folder: it is judged relative to its
 * own folder, i.e. by its name, exactly as POST /api/index/file decides. Folder patterns (`drafts/`) therefore
 * do not remove such files; indexing their folder again does (a scan drops what its walk no longer yields).
 *
 * The answer (removed, queued) is known once the removals are done and the watched folders walked; indexing
 * the queued files continues in the run after the caller has its answer.
 */
import path from 'node:path';
import type { IndexRun } from './run.js';
import type { IndexingService } from './indexing.service.js';
import type { Logger } from '../logger.js';
import type { FilesRepository } from '../store/repositories/files.repository.js';
import type { WatchJob } from '../store/repositories/jobs.repository.js';
import { sameActiveLists } from '../filters/config.js';
import { changeDirection, filesLeavingIndex, filesToQueue } from '../filters/diff.js';
import type { FilterService } from '../filters/filter.service.js';
import type { FilterMatcher } from '../filters/matcher.js';
import { findRoot, relativeToRoot } from '../filters/paths.js';
import type { ApplyOutcome, FilterApplier } from '../filters/filter-editor.js';
import type { FilterConfig } from '../filters/schema.js';
import type { OwnDataDir } from '../lib/paths.js';
import { readKnownUnder } from '../store/repositories/known-under.js';

export interface FilterRunnerDeps {
  filters: Pick<FilterService, 'config' | 'matcher'>;
  /** Watched folders (active jobs are used). */
  jobs: { list(): WatchJob[] };
  files: Pick<FilesRepository, 'listPaths' | 'knownUnderPage' | 'removePaths'>;
  indexing: Pick<IndexingService, 'startRun' | 'indexFiles'>;
  logger: Logger;
  /** Never walked: the service's own data directory. */
  ownData: OwnDataDir;
  /** Indexed paths read (and judged) per round trip to the store. */
  pageSize?: number;
}

/** Applies the filter to the index. Calls must not overlap (FilterEditor serialises them). */
export class FilterRunner implements FilterApplier {
  #current: { run: IndexRun; done: Promise<void> } | null = null;
  /** The configuration the index was last fully brought in line with; null when unknown (e.g. after start-up). */
  #synced: FilterConfig | null = null;

  constructor(private readonly deps: FilterRunnerDeps) {}

  /**
   * Applies the current configuration. With `previous` (the configuration just replaced) and an index known
   * to match it, only the work the change can require is done: adding an exclude pattern never walks the
   * watched folders, adding an include pattern never reads the index. Otherwise both passes run in full.
   */
  async apply(options: { previous?: FilterConfig } = {}): Promise<ApplyOutcome> {
    const next = this.deps.filters.config;
    const matcher = this.deps.filters.matcher;
    // A previous application still indexing stops here: from now on the new configuration decides. Its
    // remaining files are picked up below (the walk queues every included file that is not indexed).
    await this.#stopCurrent();
    const { previous } = options;
    const known = previous !== undefined && this.#synced !== null && sameActiveLists(this.#synced, previous);
    const { mayExclude, mayInclude } = known ? changeDirection(previous, next) : { mayExclude: true, mayInclude: true };
    this.#synced = null;
    const jobs = this.deps.jobs.list().filter((j) => j.is_active);

    let settle!: { resolve: (v: { removed: number; queued: number }) => void; reject: (err: unknown) => void };
    const planned = new Promise<{ removed: number; queued: number }>((resolve, reject) => (settle = { resolve, reject }));
    const { run, done } = this.deps.indexing.startRun('filters', '', false, async (run) => {
      let files: string[];
      try {
        const removed = mayExclude ? await this.#removeExcluded(run, matcher, jobs.map((j) => j.path)) : 0;
        files = mayInclude ? await this.#notIndexedIncluded(run, matcher, jobs) : [];
        settle.resolve({ removed, queued: files.length });
      } catch (err) {
        settle.reject(err);
        throw err;
      }
      await this.deps.indexing.indexFiles(run, files, { force: false });
      if (!run.signal.aborted) this.#synced = next;
    });
    this.#current = { run, done };
    const { removed, queued } = await planned;
    return { removed, queued, runId: run.id };
  }

  /** Waits for the current application's run to end (tests, and shutdown ordering). */
  async settled(): Promise<void> {
    await this.#current?.done;
  }

  async #stopCurrent(): Promise<void> {
    const current = this.#current;
    if (!current) return;
    current.run.controller.abort();
    await current.done;
    this.#current = null;
  }

  /** Pages through every indexed path, removing those the filter excludes. Answers how many left. */
  async #removeExcluded(run: IndexRun, matcher: FilterMatcher, roots: readonly string[]): Promise<number> {
    const pageSize = this.deps.pageSize ?? 2000;
    let removed = 0;
    let after: string | null = null;
    for (;;) {
      const page = await this.deps.files.listPaths(after, pageSize);
      if (page.length === 0) break;
      after = page[page.length - 1] as string;
      // No watched folder: the file's own folder, so name patterns (*.pem, .env) still decide.
      const refs = page.map((p) => ({ path: p, root: findRoot(roots, p)?.root ?? path.dirname(p) }));
      const { leaving } = filesLeavingIndex(refs, matcher);
      if (leaving.length > 0) {
        const gone = await this.deps.files.removePaths(leaving.map((l) => l.path));
        for (const p of gone) {
          run.record('removed');
          run.fileEvent('file_removed', { path: p, reason: 'excluded' });
        }
        removed += gone.length;
      }
      if (page.length < pageSize || run.signal.aborted) break;
    }
    return removed;
  }

  /** Walks the watched folders with the filter: the included files that are not in the index. */
  async #notIndexedIncluded(run: IndexRun, matcher: FilterMatcher, jobs: readonly WatchJob[]): Promise<string[]> {
    const out: string[] = [];
    for (const job of jobs) {
      const known = new Set((await readKnownUnder(this.deps.files, job.path)).map((k) => k.path));
      // A watched folder inside this one is walked on its own, relative to itself (as its scans do).
      const nested = jobs.filter((j) => j !== job && (relativeToRoot(job.path, j.path) ?? '') !== '').map((j) => j.path);
      const walk = filesToQueue([{ path: job.path, filePattern: job.file_pattern, recursive: job.recursive }], matcher, {
        isIndexed: (p) => known.has(p),
        skipPaths: [this.deps.ownData.path, ...nested],
        signal: run.signal,
        onError: (error) => this.deps.logger.warn({ path: error.path, code: error.code }, error.message),
      });
      for await (const file of walk) out.push(file.path);
      if (run.signal.aborted) break;
    }
    return out;
  }
}
