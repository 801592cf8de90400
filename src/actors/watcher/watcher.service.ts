/**
 * The watcher actor's service: watch jobs. Adding one records it, starts its watcher and, once the watcher is
 * ready (so nothing changed during the scan is missed), scans the directory through the pipeline; deleting one
 * stops the watcher, drops its queue items and deletes its files from the index. At start-up every active job
 * is watched again and reconciled against the disk. Watcher events become queue items (route-events.ts).
 */
import { spawnWatcher, WATCH_LIMIT_CODES, type WatcherEvent, type WatcherHandle, type WatcherTuning, type WatchMode, type WatchOptions } from './client.js';
import type { EventBus } from '../../events/bus.js';
import type { IndexRunKind } from '../../events/types.js';
import type { FilterService } from '../../filters/filter.service.js';
import { compileFilePattern } from '../../filters/matcher.js';
import type { IndexRun } from '../../indexing/run.js';
import type { DirectoryRunOptions, IndexingService } from '../../indexing/indexing.service.js';
import type { WatchJobs } from './jobs.js';
import type { Logger } from '../../logger.js';
import type { IndexingProcessor } from '../queue/processor.js';
import type { QueueService } from '../queue/queue.service.js';
import type { ComponentHealth } from '../../status/status.service.js';
import type { NewWatchJob, WatchJob } from '../../store/repositories/jobs.repository.js';
import type { StoreApi } from '../../store/store.js';
import { routeWatcherEvents } from './route-events.js';
import { systemRefusal, type OwnDataDir } from '../../lib/paths.js';
import { readKnownUnder } from '../../store/repositories/known-under.js';

export interface WatcherServiceDeps {
  store: StoreApi;
  jobs: WatchJobs;
  filters: FilterService;
  indexing: IndexingService;
  queue: QueueService;
  processor: IndexingProcessor;
  bus: EventBus;
  logger: Logger;
  /** The service's data directory: never watched. */
  ownData: OwnDataDir;
  watcherTuning?: Partial<WatcherTuning>;
}

export type AddJobResult =
  | { ok: true; job: WatchJob; absorbed: WatchJob[] }
  | { ok: false; code: 'already_watched' | 'invalid_pattern' | 'invalid_path'; message: string };

export interface RemovedJob {
  job: WatchJob;
  filesRemoved: number;
  queueItemsRemoved: number;
}

/** What the service knows of one job's watch. */
interface Watched {
  job: WatchJob;
  mode: WatchMode;
  ready: boolean;
  reason: string | null;
  error: string | null;
  scan: IndexRun | null;
  /** The scan's end as the API sees it: the run finished and, unless it was aborted, last_scan recorded. */
  scanned: Promise<void>;
  removed: boolean;
  /** Watcher started and first scan launched. */
  started: Promise<void>;
}

export class WatcherService {
  readonly #deps: WatcherServiceDeps;
  readonly #watched = new Map<number, Watched>();
  #watcher!: WatcherHandle;
  /** Adds and removals run one at a time (they read and change the set of jobs). */
  #lock: Promise<unknown> = Promise.resolve();
  /** Watcher batches are routed one after another, in order. */
  #routing: Promise<void> = Promise.resolve();
  #unsubscribeFilters: (() => void) | null = null;
  #closing = false;

  private constructor(deps: WatcherServiceDeps) {
    this.#deps = deps;
  }

  static async start(deps: WatcherServiceDeps): Promise<WatcherService> {
    const service = new WatcherService(deps);
    service.#watcher = await spawnWatcher({
      ownDataDir: deps.ownData.path,
      filters: deps.filters.config,
      ...(deps.watcherTuning ? { tuning: deps.watcherTuning } : {}),
      onEvents: (events) => service.#receive(events),
      onRestarted: (jobIds) => {
        for (const id of jobIds) {
          const watched = service.#watched.get(id);
          if (watched && !watched.removed) service.#scan(watched, 'reconcile');
        }
      },
      logger: deps.logger.child({ actor: 'watcher' }),
    });
    service.#unsubscribeFilters = deps.filters.subscribe((next) => {
      service.#watcher.setFilters(next).catch((err: unknown) => deps.logger.error({ err }, 'watcher could not apply new filters'));
    });
    return service;
  }

  /**
   * Start-up: every active job is watched again, then diffed against the disk (files changed while the
   * service was down, or lost in a crash, are caught up; vanished ones removed). Returns at once, with two
   * promises for the start-up phases: every job watched (`watching`), and every job's scan over (`reconciled`).
   */
  reconcileAll(serviceStartedAt?: number): { watching: Promise<void>; reconciled: Promise<void> } {
    // Files changed since the service started, seen while the watcher starts, are queued at once (the reconcile
    // scan would find them too, but only once it reaches them).
    const options = serviceStartedAt === undefined ? {} : { catchUpSince: serviceStartedAt };
    const begun = this.#deps.jobs.list().flatMap((job) => (job.is_active ? [this.#begin(job, 'reconcile', options)] : []));
    return {
      watching: Promise.all(begun.map((w) => w.started)).then(() => undefined),
      reconciled: Promise.all(begun.map((w) => this.settled(w.job.id))).then(() => undefined),
    };
  }

  add(request: NewWatchJob): Promise<AddJobResult> {
    return this.#exclusive(() => this.#add(request));
  }

  remove(id: number): Promise<RemovedJob | null> {
    return this.#exclusive(() => this.#remove(id));
  }

  /** Resolves when the job's watcher is ready and its scan has finished (tests, and callers that must wait). */
  async settled(id: number): Promise<void> {
    const watched = this.#watched.get(id);
    if (!watched) return;
    await watched.started;
    await watched.scanned;
  }

  /**
   * Resolves once every scan that has finished has its last_scan recorded: the run's completion event goes out
   * before that write (one statement later), and a client that lists the jobs on that event must find it.
   */
  async scansRecorded(): Promise<void> {
    await Promise.all([...this.#watched.values()].filter((w) => w.scan?.finishedAt != null).map((w) => w.scanned));
  }

  /** Waits until the watcher has handed over everything it saw, and it has been routed to the queue. */
  async drain(): Promise<void> {
    await this.#watcher.flush();
    await new Promise((resolve) => setImmediate(resolve));
    await this.#routing;
  }

  /** Every job is watched live (or has failed to be, with its error): nothing is still starting. */
  get ready(): boolean {
    return [...this.#watched.values()].every((w) => w.ready || w.error !== null);
  }

  /** For GET /api/status/: each job's watch mode; degraded when a job had to fall back to polling. */
  health(): ComponentHealth {
    const jobs = [...this.#watched.values()].map((w) => ({
      job_id: w.job.id,
      path: w.job.path,
      mode: w.mode,
      ready: w.ready,
      ...(w.reason ? { reason: w.reason } : {}),
      ...(w.error ? { error: w.error } : {}),
    }));
    const polling = jobs.filter((j) => j.mode === 'polling').length;
    const failed = jobs.filter((j) => j.error).length;
    return {
      ok: polling === 0 && failed === 0,
      jobs,
      native: jobs.length - polling,
      polling,
      worker_restarts: this.#watcher.restarts,
      ...(polling > 0 ? { reason: `${polling} job(s) watched by polling: the OS refused more native watches (see each job's reason)` } : {}),
    };
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#unsubscribeFilters?.();
    await this.#lock.catch(() => undefined);
    for (const watched of this.#watched.values()) watched.scan?.controller.abort();
    await this.#watcher.close();
    await this.#routing;
  }

  // ------------------------------------------------------------------------------------------ jobs

  async #add({ path: dir, recursive, filePattern }: NewWatchJob): Promise<AddJobResult> {
    const refusal = this.#deps.ownData.refusal(dir) ?? systemRefusal(dir);
    if (refusal) return { ok: false, code: 'invalid_path', message: refusal };
    const pattern = compileFilePattern(filePattern);
    if (!pattern.ok) return { ok: false, code: 'invalid_pattern', message: `file_pattern '${filePattern}' is not a valid glob: ${pattern.reason}` };
    const created = await this.#deps.store.jobs.create({ path: dir, recursive, filePattern: pattern.matcher.pattern });
    if (!created.ok) {
      const existing = created.existing;
      const message =
        existing.path === dir
          ? `Directory ${dir} is already watched (job ${existing.id})`
          : `Directory ${dir} is inside ${existing.path}, which is already watched (job ${existing.id})`;
      return { ok: false, code: 'already_watched', message };
    }
    await this.#deps.jobs.refresh();
    const { job, absorbed } = created;
    this.#deps.bus.publish('watch_added', { job, absorbed_job_ids: absorbed.map((j) => j.id) });
    const watched = this.#begin(job, 'watch');
    if (absorbed.length > 0) {
      // The new watcher covers the absorbed jobs' folders once it is ready; until then theirs keep reporting.
      void watched.started
        .then(() => Promise.all(absorbed.map((a) => this.#stop(a.id))))
        .catch((err: unknown) => this.#deps.logger.error({ err }, 'could not stop the watchers of absorbed jobs'));
    }
    return { ok: true, job, absorbed };
  }

  async #remove(id: number): Promise<RemovedJob | null> {
    const job = await this.#deps.store.jobs.get(id);
    if (!job) return null;
    await this.#stop(id);
    // Nothing may write a file of this directory after its files are deleted: drop its queue items and wait
    // for those already processing.
    const queueItemsRemoved = this.#deps.queue.removeUnder(job.path);
    await this.#deps.processor.idleUnder(job.path);
    const removed = await this.#deps.store.jobs.remove(id);
    await this.#deps.jobs.refresh();
    await this.#deps.queue.flush();
    if (!removed) return null;
    this.#deps.bus.publish('watch_removed', { job_id: id, path: job.path, files_removed: removed.filesRemoved, queue_items_removed: queueItemsRemoved });
    return { job: removed.job, filesRemoved: removed.filesRemoved, queueItemsRemoved };
  }

  /** Stops a job's watcher and its scan (waiting for the scan to wind down). */
  async #stop(id: number): Promise<void> {
    const watched = this.#watched.get(id);
    if (!watched) return;
    watched.removed = true;
    this.#watched.delete(id);
    await this.#watcher.unwatch(id).catch((err: unknown) => this.#deps.logger.warn({ err, job: id }, 'could not stop a watcher'));
    await watched.started.catch(() => undefined);
    if (watched.scan) {
      watched.scan.controller.abort();
      await this.#deps.indexing.finished(watched.scan);
    }
  }

  /** Starts a job's watcher, then (once it is ready) its scan. */
  #begin(job: WatchJob, kind: IndexRunKind, options: WatchOptions = {}): Watched {
    const watched: Watched = { job, mode: 'native', ready: false, reason: null, error: null, scan: null, scanned: Promise.resolve(), removed: false, started: Promise.resolve() };
    this.#watched.set(job.id, watched);
    // A start-up reconcile's known files are read while chokidar lists the folder (see DirectoryRunOptions.known);
    // a failure surfaces in the scan that awaits them.
    const known = kind === 'reconcile' ? readKnownUnder(this.#deps.store.files, job.path) : undefined;
    known?.catch(() => undefined);
    watched.started = (async () => {
      try {
        const state = await this.#watcher.watch({ jobId: job.id, root: job.path, recursive: job.recursive, filePattern: job.file_pattern }, options);
        watched.ready = true;
        watched.mode = state.mode;
        watched.reason = state.reason;
      } catch (err) {
        // The scan still runs (the index is made right once); the job is reported as not watched.
        watched.error = err instanceof Error ? err.message : String(err);
        this.#deps.logger.error({ err, job: job.id, path: job.path }, 'could not watch a directory');
        this.#deps.bus.publish('watch_error', { job_id: job.id, path: job.path, code: 'watch_failed', error: watched.error });
      }
      if (!watched.removed && !this.#closing) this.#scan(watched, kind, known);
    })();
    return watched;
  }

  /** Diffs the job's directory against the index through the pipeline; records last_scan when it completes. */
  #scan(watched: Watched, kind: IndexRunKind, known?: DirectoryRunOptions['known']): void {
    const { job } = watched;
    watched.scan?.controller.abort();
    // A reconcile comes once the job's watch is up: the watcher's thread walks the folder (a change after a file's
    // stat there is the watch's to report), so this thread, which serves requests, does not.
    const walked = kind === 'reconcile' && watched.error === null ? this.#watcher.walk(job.id) : undefined;
    const run = this.#deps.indexing.startDirectory(job.path, {
      kind,
      force: false,
      recursive: job.recursive,
      filePattern: job.file_pattern,
      root: job.path,
      ...(known ? { known } : {}),
      ...(walked ? { walked } : {}),
      // A file the queue already holds a change for is the queue's: its cooldown and the scheduler (which may be
      // pausing it since before this start) decide when it is indexed, not this scan.
      ...(kind === 'reconcile' ? { leaveTo: queuedPaths(this.#deps.queue) } : {}),
    });
    watched.scan = run;
    // Awaited by settled(): a caller told "the scan is done" must find last_scan recorded (a read between the run's
    // end and this write saw the previous scan's time).
    watched.scanned = this.#deps.indexing.finished(run).then(async () => {
      if (run.signal.aborted || watched.removed) return;
      try {
        const updated = await this.#deps.store.jobs.setLastScan(job.id, new Date());
        if (updated) watched.job = updated;
        await this.#deps.jobs.refresh();
      } catch (err) {
        this.#deps.logger.warn({ err, job: job.id }, 'could not record last_scan');
      }
    });
  }

  // ------------------------------------------------------------------------------------------ events

  #receive(events: WatcherEvent[]): void {
    if (this.#closing) return;
    this.#routing = this.#routing
      .then(() =>
        routeWatcherEvents(events, {
          jobs: this.#deps.jobs,
          store: this.#deps.store,
          bus: this.#deps.bus,
          enqueue: (items) => this.#deps.queue.enqueueMany(items),
          onMode: (jobId, mode, reason) => this.#modeChanged(jobId, mode, reason),
          // A refused watch (the OS limit) is logged once, with its count, when the job falls back to polling.
          onError: (jobId, code, message) => {
            if (!WATCH_LIMIT_CODES.has(code)) this.#deps.logger.warn({ job: jobId, code }, message);
          },
        }),
      )
      .catch((err: unknown) => this.#deps.logger.error({ err }, 'could not route watcher events'));
  }

  #modeChanged(jobId: number, mode: WatchMode, reason: string): void {
    const watched = this.#watched.get(jobId);
    if (!watched || watched.removed) return;
    watched.mode = mode;
    watched.reason = reason;
    this.#deps.logger.warn({ job: jobId, mode }, reason);
    this.#deps.bus.publish('watch_mode_changed', { job_id: jobId, path: watched.job.path, mode, reason });
    // Changes between the refusal and the new watcher being ready may have been missed: look at the disk.
    if (!this.#closing) this.#scan(watched, 'reconcile');
  }

  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#lock.then(fn, fn);
    this.#lock = run.catch(() => undefined);
    return run;
  }
}

/** The paths the queue holds a pending change for, as the scan starts (a move's source and destination). */
function queuedPaths(queue: QueueService): (path: string) => boolean {
  const paths = new Set(queue.items().flatMap((item) => (item.dest_path ? [item.file_path, item.dest_path] : [item.file_path])));
  return (path) => paths.has(path);
}
