import { lstat } from 'node:fs/promises';
import path from 'node:path';
import type { EventBus } from '../events/bus.js';
import type { IndexRunKind } from '../events/types.js';
import { compileFilePattern } from '../filters/matcher.js';
import type { FilterService } from '../filters/filter.service.js';
import { countFiles, walkFiles, type WalkedFile, type WalkedTree, type WalkError } from '../filters/walk.js';
import type { Logger } from '../logger.js';
import { IN_FLIGHT_PER_THREAD, type PipelinePool } from '../pipeline/pool.js';
import type { ComponentHealth } from '../status/status.service.js';
import type { KnownFile } from '../store/repositories/files.types.js';
import type { StoreApi } from '../store/store.js';
import { looksUnchanged, type Indexer } from './indexer.js';
import { Limiter } from '../lib/limiter.js';
import { IndexRun } from './run.js';
import type { IndexUpkeep } from './upkeep.js';
import { isWithin, type OwnDataDir } from '../lib/paths.js';
import { readKnownUnder } from '../store/repositories/known-under.js';

/** Stale files fetched per query of a re-embed run (ids and paths only; the text is read per file). */
const REEMBED_PAGE = 500;

export interface DirectoryRunOptions {
  kind: IndexRunKind;
  force: boolean;
  recursive?: boolean;
  /** A watch job's own glob (e.g. '*.md'), on top of the filters. */
  filePattern?: string | null;
  /** Root that anchored filter patterns (leading '/') are relative to: the watch job's directory. */
  root?: string;
  /**
   * The index's files under the directory (store.files.knownUnder), already asked for: a start-up reconcile asks
   * while the watcher starts, so the store reads them (~0.3-0.5 s on a cold 5,400-file index) beside chokidar's
   * listing instead of after it. Files written in between are found changed or gone by the walk, as they would be
   * when written during it.
   */
  known?: Promise<KnownFile[]>;
  /**
   * Files that are someone else's to index: the queue's (a start-up reconcile leaves a file with a pending queue
   * item to the queue, whose cooldown and scheduler decide when it runs). Not part of this run; never removed by it.
   */
  leaveTo?: (path: string) => boolean;
  /**
   * The directory already walked elsewhere, with the same filters and options (a reconcile's walk, made on the
   * watcher's thread once the watch is up: src/actors/watcher/watcher-core.ts, walk()). When it fails, the run
   * walks the directory itself.
   */
  walked?: Promise<WalkedTree>;
}

export interface IndexingServiceDeps {
  indexer: Indexer;
  store: StoreApi;
  pool: PipelinePool;
  filters: FilterService;
  bus: EventBus;
  logger: Logger;
  /** Never indexed: the service's own data directory (its database would index itself). */
  ownData: OwnDataDir;
  embeddingModel: () => string | null;
  /** Files in flight per pipeline thread in a run (default IN_FLIGHT_PER_THREAD). */
  inFlightPerThread?: number;
  /** The index's background upkeep, told what each run wrote. */
  upkeep?: IndexUpkeep;
}

/**
 * Starts and tracks indexing runs. A directory run walks the tree (respecting the filters, never entering
 * excluded folders or our own data directory), diffs it against the index by size and mtime, feeds the changed
 * files to the pipeline with bounded concurrency, and removes indexed files that are gone or now excluded.
 */
export class IndexingService {
  readonly #runs = new Set<IndexRun>();
  readonly #finished = new Set<Promise<void>>();
  #lastReembed: IndexRun | null = null;
  /** startReembed calls, one after the other (each cancels the previous run before counting). */
  #reembedQueue: Promise<unknown> = Promise.resolve();
  #closed = false;
  readonly #done = new WeakMap<IndexRun, Promise<void>>();

  constructor(private readonly deps: IndexingServiceDeps) {}

  get activeRuns(): IndexRun[] {
    return [...this.#runs];
  }

  /** The latest re-embed run, running or finished (null when there was none). */
  get lastReembed(): IndexRun | null {
    return this.#lastReembed;
  }

  /**
   * Starts a background run that re-embeds, from their stored text, the indexed files whose chunks another
   * model made (the active model changed). A re-embed still running is cancelled first. Answers null when
   * every file is up to date, or when no embedder is available.
   */
  startReembed(): Promise<IndexRun | null> {
    const next = this.#reembedQueue.then(async () => {
      const previous = this.#lastReembed;
      if (previous && previous.finishedAt === null) previous.controller.abort();
      const model = this.deps.embeddingModel();
      if (this.#closed || model === null) return null;
      const stale = await this.deps.store.embeddings.countStale(model);
      if (stale === 0 || this.#closed) return null;
      const run = new IndexRun(this.deps.bus, 'reembed', '', false, { logger: this.deps.logger });
      run.addToTotal(stale);
      run.finalizeTotal();
      this.#lastReembed = run;
      this.#track(run, () => this.#reembedAll(run, model));
      return run;
    });
    this.#reembedQueue = next.catch(() => undefined);
    return next;
  }

  /** Indexes one file in a run of its own; answers at once with the run (work continues asynchronously). */
  startFile(filePath: string, options: { force: boolean; kind?: IndexRunKind }): IndexRun {
    const run = new IndexRun(this.deps.bus, options.kind ?? 'file', filePath, options.force, { logger: this.deps.logger });
    run.addToTotal(1);
    run.finalizeTotal();
    this.#track(run, async () => {
      await this.deps.indexer.indexFile(filePath, { run, force: options.force });
    });
    return run;
  }

  /** Scans a directory in a new run; answers at once with the run. */
  startDirectory(directory: string, options: DirectoryRunOptions): IndexRun {
    options.walked?.catch(() => undefined); // a failure is handled where the scan awaits it
    const run = new IndexRun(this.deps.bus, options.kind, directory, options.force, { logger: this.deps.logger });
    this.#track(run, () => this.#scan(run, directory, options));
    return run;
  }

  /**
   * A run whose work the caller supplies (filter application: removals, then the files a change newly includes).
   * Tracked like the others: counted in activeRuns, cancelled by close(), completed (with its event) when the work
   * ends. `done` resolves then (never rejects: a failure is logged).
   */
  startRun(kind: IndexRunKind, runPath: string, force: boolean, work: (run: IndexRun) => Promise<void>): { run: IndexRun; done: Promise<void> } {
    const run = new IndexRun(this.deps.bus, kind, runPath, force, { logger: this.deps.logger });
    const done = this.#track(run, () => work(run));
    return { run, done };
  }

  /** A run's bound on files in flight: IN_FLIGHT_PER_THREAD for each pipeline thread. */
  #limiter(): Limiter {
    return new Limiter(this.deps.pool.stats().maxThreads * (this.deps.inFlightPerThread ?? IN_FLIGHT_PER_THREAD));
  }

  /** Indexes the given files inside a run, with the same bounded concurrency as a scan; resolves when all are done. */
  async indexFiles(run: IndexRun, files: readonly string[], options: { force: boolean }): Promise<void> {
    const limiter = this.#limiter();
    run.addToTotal(files.length);
    run.finalizeTotal();
    for (const file of files) {
      if (run.signal.aborted) break;
      run.noteCurrent(file);
      await limiter.launch(() => this.deps.indexer.indexFile(file, { run, force: options.force }));
    }
    await limiter.drain();
  }

  /** The `worker_pool` component of GET /api/status/: the pipeline threads and the runs feeding them. */
  health(): ComponentHealth {
    const s = this.deps.pool.stats();
    return {
      ok: true,
      threads: s.threads,
      max_threads: s.maxThreads,
      thread_limit: s.threadLimit,
      queued_tasks: s.queued,
      completed_tasks: s.completed,
      utilization: s.utilization,
      active_runs: this.#runs.size,
    };
  }

  /** Resolves when this run has finished (completed or cancelled); at once for a run that is over. */
  finished(run: IndexRun): Promise<void> {
    return this.#done.get(run) ?? Promise.resolve();
  }

  /** Resolves when the run has finished (tests, and callers that must wait). */
  async settled(): Promise<void> {
    while (this.#finished.size > 0) await Promise.all([...this.#finished]);
  }

  /** Cancels every run (files in flight stop at their next stage) and waits for them to wind down. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#reembedQueue;
    for (const run of this.#runs) run.controller.abort();
    await this.settled();
  }

  #track(run: IndexRun, work: () => Promise<void>): Promise<void> {
    this.#runs.add(run);
    const done = work()
      .catch((err: unknown) => this.deps.logger.error({ err, run: run.id }, 'indexing run failed'))
      .finally(() => {
        this.deps.upkeep?.written(run.counts.indexed + run.counts.removed, true);
        run.complete();
        this.#runs.delete(run);
        this.#finished.delete(done);
      });
    this.#finished.add(done);
    this.#done.set(run, done);
    return done;
  }

  /**
   * Pages through the stale files by id and re-embeds them with bounded concurrency. A second pass catches
   * files that a task still running on the old model's threads finished after the first pass went by them;
   * each file is tried once per run (a failure waits for the next run).
   */
  async #reembedAll(run: IndexRun, model: string): Promise<void> {
    const { store, indexer } = this.deps;
    const limiter = this.#limiter();
    const attempted = new Set<number>();
    for (let pass = 0; pass < 2 && !run.signal.aborted; pass++) {
      let after = 0;
      let found = 0;
      while (!run.signal.aborted) {
        const page = await store.embeddings.stale(model, after, REEMBED_PAGE);
        if (page.length === 0) break;
        after = page[page.length - 1]!.id;
        for (const file of page) {
          if (attempted.has(file.id) || run.signal.aborted) continue;
          attempted.add(file.id);
          found++;
          if (pass > 0) run.addToTotal(1);
          run.noteCurrent(file.path);
          await limiter.launch(() => indexer.reembedFile(file, run));
        }
      }
      await limiter.drain();
      if (found === 0) break;
    }
  }

  async #scan(run: IndexRun, directory: string, options: DirectoryRunOptions): Promise<void> {
    const { store, indexer, filters } = this.deps;
    const model = this.deps.embeddingModel();
    const recursive = options.recursive ?? true;
    const known = new Map((await (options.known ?? readKnownUnder(store.files, directory))).map((k) => [k.path, k]));
    // The index's files that the walk finds, by their entry in `known`: the others are stale. Not every path
    // walked: a first scan of a 300,000-file home directory held them all until its end (~30 MB).
    const found = new Set<KnownFile>();
    const unreadableDirs: string[] = [];
    const pattern = options.filePattern ? compileFilePattern(options.filePattern) : null;
    const limiter = this.#limiter();

    const walkOptions = {
      matcher: filters.matcher,
      relativeTo: options.root ?? directory,
      recursive,
      ...(pattern?.ok ? { filePattern: pattern.matcher } : {}),
      skipPaths: [this.deps.ownData.path],
      signal: run.signal,
    };
    const walked = await options.walked?.catch((err: unknown) => {
      this.deps.logger.warn({ err, path: directory }, 'the watcher could not walk the folder; walking it here');
      return null;
    });
    // The walk below goes at the pipeline's pace; a count ahead of it (folder listings only) makes the total real
    // within seconds, so the progress bar and the ETA mean something from the start. A start-up reconcile finds
    // the folder already indexed: the files the index knows there are the estimate, and the tree is walked once
    // at every start instead of twice. A walk made elsewhere is complete already.
    if (walked) {
      run.estimateTotal(walked.paths.length);
    } else if (options.kind === 'reconcile' && known.size > 0) {
      run.estimateTotal(known.size);
    } else {
      void countFiles(directory, walkOptions).then(
        (counted) => {
          if (!counted.aborted && counted.rootError === null) run.estimateTotal(counted.files);
        },
        (err: unknown) => this.deps.logger.warn({ err, path: directory }, 'counting the files ahead of the scan failed'),
      );
    }
    const onError = (error: WalkError): void => {
      this.deps.logger.warn({ path: error.path, code: error.code }, error.message);
      if (error.code !== 'invalid_name') {
        unreadableDirs.push(error.path);
        return;
      }
      // Not addressable by name, so nothing can be stored for it: counted and told as failed, with the reason.
      run.record('failed');
      run.fileFailed({ path: error.path, file_id: null, code: error.code, error: error.message });
    };
    const walk = walked ? replay(walked, onError) : walkFiles(directory, { ...walkOptions, onError });
    for await (const file of walk) {
      if (run.signal.aborted) break;
      const before = known.get(file.path) ?? null;
      if (before) found.add(before);
      if (options.leaveTo?.(file.path)) continue;
      run.addToTotal(1);
      if (!options.force && before && looksUnchanged(before, file.size, file.mtimeMs, model)) {
        run.record('skipped');
        run.fileEvent('file_skipped', { path: file.path, reason: 'unchanged' });
        continue;
      }
      run.noteCurrent(file.path);
      await limiter.launch(() => indexer.indexFile(file.path, { run, force: options.force, known: before }));
    }
    run.finalizeTotal();
    await limiter.drain();
    if (run.signal.aborted) return;

    // Indexed files the walk did not yield are gone from disk or now excluded. A folder that could not be read
    // is not evidence of deletion: its files stay. A non-recursive run only answers for the folder's own files.
    const stale = [...known.values()]
      .filter((k) => !found.has(k))
      .map((k) => k.path)
      .filter((p) => !unreadableDirs.some((d) => isWithin(d, p)) && (recursive || path.dirname(p) === directory));
    // Still on disk: the walk left it out, i.e. the filters (or the job's file_pattern) now exclude it.
    for (const p of stale) await indexer.removeFile(p, (await exists(p)) ? 'excluded' : 'deleted', run);
  }
}

/** A walk made elsewhere, as walkFiles would have yielded it: its errors reported first, then its files. */
function* replay(tree: WalkedTree, onError: (error: WalkError) => void): Generator<Pick<WalkedFile, 'path' | 'size' | 'mtimeMs'>> {
  for (const error of tree.errors) onError(error);
  for (let i = 0; i < tree.paths.length; i++) yield { path: tree.paths[i]!, size: tree.sizes[i]!, mtimeMs: tree.mtimes[i]! };
}

async function exists(p: string): Promise<boolean> {
  try {
    await lstat(p);
    return true;
  } catch {
    return false;
  }
}
