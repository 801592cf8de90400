import { randomUUID } from 'node:crypto';
import type { EventBus } from '../events/bus.js';
import type { EventMap, IndexRunCounts, IndexRunKind, IndexRunStageSeconds } from '../events/types.js';

/** Per-file stage events a run may send per second (plus a burst); the rest are counted in progress only. */
export const FILE_EVENTS_PER_SECOND = 20;
const FILE_EVENT_BURST = 50;
const PROGRESS_INTERVAL_MS = 1000;

type FileEventName = 'file_parsing' | 'file_parsed' | 'file_summarized' | 'file_embedded' | 'file_indexed' | 'file_skipped' | 'file_removed';

/** What became of one file, as counted in its run. */
export type FileStatus = 'indexed' | 'skipped' | 'failed' | 'removed';

/** The result of indexing one file: a failure carries its code and reason (the queue decides on a retry by them). */
export type FileOutcome = { status: Exclude<FileStatus, 'failed'> } | { status: 'failed'; code: string; reason: string };

/**
 * One indexing run: its counts, its progress events (at most one a second) and a token bucket that keeps a
 * 100,000-file run from flooding event clients with per-file events. Failures are always published.
 */
export class IndexRun {
  readonly id = randomUUID();
  readonly startedAt = Date.now();
  readonly counts: IndexRunCounts = { processed: 0, indexed: 0, skipped: 0, failed: 0, removed: 0 };
  /** Time spent per stage, summed over the run's files (seconds; with N threads the sum can exceed the run). */
  readonly stageSeconds: IndexRunStageSeconds = { analyze: 0, embed: 0, store: 0 };
  #total = 0;
  #totalFinal = false;
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
  ) {
    bus.publish('index_run_started', { run_id: this.id, kind, path, force });
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** More files were found (the walk streams). */
  addToTotal(n: number): void {
    this.#total += n;
  }

  /** The walk is over: the total is final. */
  finalizeTotal(): void {
    this.#totalFinal = true;
    this.#progress(true);
  }

  get total(): number {
    return this.#total;
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

  record(status: FileStatus): void {
    if (status === 'removed') {
      this.counts.removed++;
    } else {
      this.counts.processed++;
      this.counts[status]++;
    }
    this.#progress(false);
  }

  #progress(force: boolean): void {
    const now = Date.now();
    if (!force && now - this.#lastProgress < PROGRESS_INTERVAL_MS) return;
    this.#lastProgress = now;
    const elapsed = (now - this.startedAt) / 1000;
    const rate = elapsed > 0 ? this.counts.processed / elapsed : 0;
    const remaining = Math.max(0, this.#total - this.counts.processed);
    this.bus.publish('index_run_progress', {
      run_id: this.id,
      ...this.counts,
      total: this.#total,
      total_final: this.#totalFinal,
      files_per_second: Math.round(rate * 10) / 10,
      eta_seconds: this.#totalFinal && rate > 0 ? Math.round(remaining / rate) : null,
    });
  }

  /** When the run ended (epoch ms), or null while it goes on. */
  get finishedAt(): number | null {
    return this.#finishedAt;
  }

  complete(): void {
    if (this.#done) return;
    this.#done = true;
    this.#finishedAt = Date.now();
    this.bus.publish('index_run_completed', {
      run_id: this.id,
      kind: this.kind,
      path: this.path,
      total: this.#total,
      ...this.counts,
      duration_seconds: Math.round((Date.now() - this.startedAt) / 100) / 10,
      cancelled: this.signal.aborted,
      stage_seconds: {
        analyze: Math.round(this.stageSeconds.analyze * 1000) / 1000,
        embed: Math.round(this.stageSeconds.embed * 1000) / 1000,
        store: Math.round(this.stageSeconds.store * 1000) / 1000,
      },
    });
  }
}
