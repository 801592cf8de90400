import { randomUUID } from 'node:crypto';
import type { EventBus } from '../events/bus.js';
import type { EventMap, IndexRunCounts, IndexRunKind, IndexRunProgress, IndexRunStageSeconds } from '../events/types.js';
import { formatDuration } from '../lib/format.js';
import type { Logger } from '../logger.js';

/** Per-file stage events a run may send per second (plus a burst); the rest are counted in progress only. */
export const FILE_EVENTS_PER_SECOND = 20;
const FILE_EVENT_BURST = 50;
const PROGRESS_INTERVAL_MS = 1000;
/** A progress line in the server's log at most this often (info level), so a long scan is visible there too. */
export const LOG_INTERVAL_MS = 5000;
/** The rate behind files_per_second and eta_seconds: files processed over about this last stretch of time. */
const RATE_WINDOW_MS = 30_000;
/** Runs over many files whose start and end are logged at info (a single file's or a queue burst's at debug). */
const SCAN_KINDS: ReadonlySet<IndexRunKind> = new Set(['directory', 'watch', 'reconcile', 'filters', 'reembed']);

type FileEventName = 'file_parsing' | 'file_parsed' | 'file_summarized' | 'file_embedded' | 'file_indexed' | 'file_skipped' | 'file_removed';

/** What became of one file, as counted in its run. */
export type FileStatus = 'indexed' | 'skipped' | 'failed' | 'removed';

/** The result of indexing one file: a failure carries its code and reason (the queue decides on a retry by them). */
export type FileOutcome = { status: Exclude<FileStatus, 'failed'> } | { status: 'failed'; code: string; reason: string };

export interface RunLogOptions {
  /** Where the run's start, progress (every few seconds) and end are logged; none: not logged. */
  logger?: Logger | null;
  /** Progress lines at most this often (default LOG_INTERVAL_MS). */
  logIntervalMs?: number;
}

/**
 * One indexing run: its counts, its progress events (at most one a second), a progress line in the log every
 * few seconds, and a token bucket that keeps a 100,000-file run from flooding event clients with per-file
 * events. Failures are always published.
 *
 * The total: a scan counts the files ahead of its walk (estimateTotal), so the total is final long before the
 * walk has reached the last file; files found by the walk beyond that count raise it, and the walk's own count
 * replaces it when the walk ends (finalizeTotal). Runs over a known list set it at once.
 */
export class IndexRun {
  readonly id = randomUUID();
  readonly startedAt = Date.now();
  readonly counts: IndexRunCounts = { processed: 0, indexed: 0, name_only: 0, skipped: 0, failed: 0, removed: 0 };
  /** Time spent per stage, summed over the run's files (seconds; with N threads the sum can exceed the run). */
  readonly stageSeconds: IndexRunStageSeconds = { analyze: 0, embed: 0, store: 0 };
  /** Files the walk (or the caller) has found so far. */
  #found = 0;
  /** The count made ahead of the walk, until the walk ends. */
  #counted: number | null = null;
  #walkDone = false;
  #current: string | null = null;
  /** (time, processed) about once a second over the last RATE_WINDOW_MS, oldest first. */
  readonly #samples: { at: number; processed: number }[] = [];
  #lastLog: number;
  readonly #logIntervalMs: number;
  private readonly logger: Logger | null;
  #tokens = FILE_EVENT_BURST;
  #refilledAt = Date.now();
  #lastProgress = 0;
  #done = false;
  #finishedAt: number | null = null;
  readonly controller = new AbortController();

  constructor(
    private readonly bus: EventBus,
    readonly kind: IndexRunKind,
    readonly path: string,
    readonly force: boolean,
    options: RunLogOptions = {},
  ) {
    this.logger = options.logger ?? null;
    this.#logIntervalMs = options.logIntervalMs ?? LOG_INTERVAL_MS;
    this.#lastLog = this.startedAt;
    bus.publish('index_run_started', { run_id: this.id, kind, path, force });
    if (SCAN_KINDS.has(kind)) this.logger?.info({ run: this.id, kind, path, force }, `indexing run started: ${describeRun(kind, path)}`);
    else this.logger?.debug({ run: this.id, kind, path, force }, `indexing run started: ${describeRun(kind, path)}`);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** More files were found (the walk streams). */
  addToTotal(n: number): void {
    this.#found += n;
  }

  /** The files a count ahead of the walk found: the total is known from now on (ignored once the walk ended). */
  estimateTotal(n: number): void {
    if (this.#walkDone) return;
    this.#counted = n;
    this.#progress(true);
  }

  /** The walk is over: the total is final, and exactly what the walk found. */
  finalizeTotal(): void {
    this.#walkDone = true;
    this.#counted = null;
    this.#progress(true);
  }

  get total(): number {
    return this.#counted === null ? this.#found : Math.max(this.#found, this.#counted);
  }

  get totalFinal(): boolean {
    return this.#walkDone || this.#counted !== null;
  }

  /** The file most recently handed to the pipeline (shown as the run's current file). */
  noteCurrent(filePath: string): void {
    this.#current = filePath;
  }

  /** Where the run stands: what index_run_progress carries, and GET /api/index/runs lists. */
  progress(now = Date.now()): IndexRunProgress {
    const rate = this.#rate(now);
    const remaining = Math.max(0, this.total - this.counts.processed);
    return {
      run_id: this.id,
      ...this.counts,
      total: this.total,
      total_final: this.totalFinal,
      files_per_second: Math.round(rate * 10) / 10,
      eta_seconds: this.totalFinal && rate > 0 ? Math.round(remaining / rate) : null,
      current_path: this.#finishedAt === null ? this.#current : null,
    };
  }

  /**
   * Files per second over the last RATE_WINDOW_MS (since the start while the run is younger): a scan's first
   * seconds skip unchanged files fast, and its ETA should follow the pace of the files still left.
   */
  #rate(now: number): number {
    const samples = this.#samples;
    while (samples.length > 1 && now - samples[1]!.at >= RATE_WINDOW_MS) samples.shift();
    const from = samples[0] !== undefined && now - samples[0].at >= RATE_WINDOW_MS / 2 ? samples[0] : { at: this.startedAt, processed: 0 };
    const seconds = (now - from.at) / 1000;
    return seconds > 0 ? (this.counts.processed - from.processed) / seconds : 0;
  }

  fileEvent<N extends FileEventName>(type: N, data: Omit<EventMap[N], 'run_id'>): void {
    const now = Date.now();
    this.#tokens = Math.min(FILE_EVENT_BURST, this.#tokens + ((now - this.#refilledAt) / 1000) * FILE_EVENTS_PER_SECOND);
    this.#refilledAt = now;
    if (this.#tokens < 1) return;
    this.#tokens -= 1;
    this.bus.publish(type, { ...data, run_id: this.id } as EventMap[N]);
  }

  fileFailed(data: Omit<EventMap['file_failed'], 'run_id'>): void {
    this.bus.publish('file_failed', { ...data, run_id: this.id });
  }

  /** Adds a file's time in a stage (ms): analyze and embed as measured in the worker, store around the write. */
  addStageTime(stage: keyof IndexRunStageSeconds, ms: number): void {
    this.stageSeconds[stage] += ms / 1000;
  }

  /** Counts a file's outcome; `nameOnly`: indexed without text (searchable by name only). */
  record(status: FileStatus, nameOnly = false): void {
    if (status === 'removed') {
      this.counts.removed++;
    } else {
      this.counts.processed++;
      this.counts[status]++;
      if (status === 'indexed' && nameOnly) this.counts.name_only++;
    }
    this.#progress(false);
  }

  #progress(force: boolean): void {
    const now = Date.now();
    if (!force && now - this.#lastProgress < PROGRESS_INTERVAL_MS) return;
    this.#lastProgress = now;
    this.#samples.push({ at: now, processed: this.counts.processed });
    const progress = this.progress(now);
    this.bus.publish('index_run_progress', progress);
    if (this.logger && now - this.#lastLog >= this.#logIntervalMs) {
      this.#lastLog = now;
      this.logger.info({ run: this.id, kind: this.kind, ...progress }, progressLine(describeRun(this.kind, this.path), progress));
    }
  }

  /** When the run ended (epoch ms), or null while it goes on. */
  get finishedAt(): number | null {
    return this.#finishedAt;
  }

  complete(): void {
    if (this.#done) return;
    this.#done = true;
    this.#finishedAt = Date.now();
    const completed: EventMap['index_run_completed'] = {
      run_id: this.id,
      kind: this.kind,
      path: this.path,
      total: this.total,
      ...this.counts,
      duration_seconds: Math.round((this.#finishedAt - this.startedAt) / 100) / 10,
      cancelled: this.signal.aborted,
      stage_seconds: {
        analyze: Math.round(this.stageSeconds.analyze * 1000) / 1000,
        embed: Math.round(this.stageSeconds.embed * 1000) / 1000,
        store: Math.round(this.stageSeconds.store * 1000) / 1000,
      },
    };
    this.bus.publish('index_run_completed', completed);
    if (this.logger) {
      const { stage_seconds: _stages, ...fields } = completed;
      const line = `indexing run ${completed.cancelled ? 'cancelled' : 'completed'}: ${describeRun(this.kind, this.path)}, ` +
        `${completed.processed} of ${completed.total} files in ${formatDuration(completed.duration_seconds)} ` +
        `(${completed.indexed} indexed, ${completed.skipped} unchanged, ${completed.failed} failed, ${completed.removed} removed)`;
      if (SCAN_KINDS.has(this.kind) || this.#finishedAt - this.startedAt >= this.#logIntervalMs) this.logger.info({ run: this.id, ...fields }, line);
      else this.logger.debug({ run: this.id, ...fields }, line);
    }
  }
}

function describeRun(kind: IndexRunKind, runPath: string): string {
  return runPath === '' ? `${kind} run` : `${kind} ${runPath}`;
}

/** The log line of a run's progress: "watch /home/me: 1200 of 30000 files (4.0 %), 85.2 files/s, about 5m 38s left". */
export function progressLine(what: string, p: IndexRunProgress): string {
  const of = p.total_final && p.total > 0 ? ` of ${p.total} files (${((100 * p.processed) / p.total).toFixed(1)} %)` : ` files (${p.total} found so far)`;
  const eta = p.eta_seconds === null ? '' : `, about ${formatDuration(p.eta_seconds)} left`;
  const failed = p.failed > 0 ? `, ${p.failed} failed` : '';
  return `${what}: ${p.processed}${of}, ${p.files_per_second} files/s${failed}${eta}`;
}
