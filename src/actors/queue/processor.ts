/**
 * The queue's processor (QueueProcessor port): runs one queue item through the indexer. `index` indexes the
 * file (skipping unchanged content), `delete` removes it from the index, `move` updates the path without
 * re-embedding when the destination is still the file the source was indexed as (the indexer checks). Each
 * item is judged again when it runs: a file that is excluded by now leaves the index, one that is back on
 * disk is indexed instead of deleted, and one no watch job covers any more is left alone.
 */
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import type { ProcessOutcome, QueueProcessor, StoredQueueItem } from './types.js';
import type { EventBus } from '../../events/bus.js';
import { compileFilePattern, type FilePatternMatcher } from '../../filters/matcher.js';
import type { FilterService } from '../../filters/filter.service.js';
import { relativeToRoot } from '../../filters/paths.js';
import type { Indexer } from '../../indexing/indexer.js';
import { IndexRun, type FileOutcome } from '../../indexing/run.js';
import type { WatchJob } from '../../store/repositories/jobs.repository.js';
import { hasInvalidName, INVALID_NAME_REASON, isWithin, type OwnDataDir } from '../../lib/paths.js';
import type { Logger } from '../../logger.js';

/**
 * Failure codes worth another attempt: the file may be locked or being written (unreadable), a worker thread
 * died, the database was briefly unavailable (internal), or the work was cancelled. Content problems
 * (corrupt, encrypted, not a file) and timeouts would fail the same way again.
 */
export const RETRYABLE_CODES: ReadonlySet<string> = new Set(['unreadable', 'worker_crashed', 'internal', 'aborted']);

export interface IndexingProcessorDeps {
  indexer: Indexer;
  filters: FilterService;
  /** The watched directories (actors/watcher/jobs.ts). */
  jobs: { jobFor(absolutePath: string): WatchJob | null; roots(): string[] };
  bus: EventBus;
  /** Never indexed: the service's own data directory. */
  ownData: OwnDataDir;
  /** Where a long burst's progress lines go. */
  logger?: Logger;
}

type Placement = 'indexed' | 'excluded' | 'unwatched';

export class IndexingProcessor implements QueueProcessor {
  /**
   * The indexing run of a busy period (kind 'queue', path ''): it starts with the first item processed after the
   * queue was idle and completes when nothing is processing any more, so clients follow queue work with the same
   * run events as scans.
   */
  #run: IndexRun | null = null;
  #inFlight = 0;
  /**
   * Paths being processed, with the work and what stops it: a deleted job stops its items (at their next
   * stage: a hostile file is not waited out to its timeout) and waits for them before deleting its files.
   */
  readonly #busy = new Map<string, { work: Promise<unknown>; controller: AbortController }>();
  readonly #patterns = new Map<string, FilePatternMatcher>();
  #closing = false;

  constructor(private readonly deps: IndexingProcessorDeps) {}

  process(item: StoredQueueItem): Promise<ProcessOutcome> {
    const run = (this.#run ??= new IndexRun(this.deps.bus, 'queue', '', false, { logger: this.deps.logger ?? null }));
    if (this.#closing) run.controller.abort();
    run.addToTotal(1);
    this.#inFlight++;
    const controller = new AbortController();
    const signal = AbortSignal.any([run.signal, controller.signal]);
    const work = this.#dispatch(item, run, signal).finally(() => {
      this.#inFlight--;
      for (const p of [item.file_path, item.dest_path]) if (p !== null && this.#busy.get(p)?.work === work) this.#busy.delete(p);
      // The queue starts its next item right after this one settles: end the run only if none followed.
      setImmediate(() => {
        if (this.#inFlight === 0 && this.#run === run) {
          this.#run = null;
          run.finalizeTotal();
          run.complete();
        }
      });
    });
    this.#busy.set(item.file_path, { work, controller });
    if (item.dest_path !== null) this.#busy.set(item.dest_path, { work, controller });
    return work;
  }

  /**
   * Stops the items touching `directory` (or below it) that are being processed, and resolves when none is
   * (their job is being deleted: the queue has already dropped them, so their outcome no longer matters).
   */
  async idleUnder(directory: string): Promise<void> {
    for (;;) {
      const pending = [...this.#busy].filter(([p]) => isWithin(directory, p)).map(([, b]) => b);
      if (pending.length === 0) return;
      for (const busy of pending) busy.controller.abort();
      await Promise.allSettled(pending.map((b) => b.work));
    }
  }

  /** Stops the files in flight at their next stage (shutdown); they come back as retryable failures. */
  abort(): void {
    this.#closing = true;
    this.#run?.controller.abort();
  }

  async #dispatch(item: StoredQueueItem, run: IndexRun, signal: AbortSignal): Promise<ProcessOutcome> {
    switch (item.action) {
      case 'index':
        run.noteCurrent(item.file_path);
        return this.#index(item.file_path, run, signal, item.retry_count > 0);
      case 'delete':
        return this.#delete(item.file_path, run, signal);
      case 'move':
        return this.#move(item.file_path, item.dest_path ?? '', run, signal);
    }
  }

  /** `retry`: an earlier attempt failed, and a failed file with unchanged size and mtime would be skipped. */
  async #index(filePath: string, run: IndexRun, signal: AbortSignal, retry = false): Promise<ProcessOutcome> {
    const placement = this.#placement(filePath);
    if (placement === 'unwatched') return { ok: true };
    if (placement === 'excluded') {
      await this.deps.indexer.removeFile(filePath, 'excluded', run);
      return { ok: true };
    }
    if (!(await isFile(filePath))) {
      if (hasInvalidName(filePath)) {
        // Reported by the watcher with U+FFFD for the bad bytes (no such name exists): counted as failed, as the scan does.
        run.record('failed');
        run.fileFailed({ path: filePath, file_id: null, code: 'invalid_name', error: INVALID_NAME_REASON });
        return { ok: true };
      }
      await this.deps.indexer.removeFile(filePath, 'deleted', run);
      return { ok: true };
    }
    return this.#outcome(await this.deps.indexer.indexFile(filePath, { run, force: retry, signal }));
  }

  async #delete(filePath: string, run: IndexRun, signal: AbortSignal): Promise<ProcessOutcome> {
    // Deleted, then back before its turn came (an editor's save, a checkout): index what is there.
    if (this.#placement(filePath) === 'indexed' && (await isFile(filePath))) return this.#index(filePath, run, signal);
    await this.deps.indexer.removeFile(filePath, 'deleted', run);
    return { ok: true };
  }

  async #move(from: string, to: string, run: IndexRun, signal: AbortSignal): Promise<ProcessOutcome> {
    const placement = this.#placement(to);
    if (placement !== 'indexed') {
      // Moved out of every watched directory, or to a name the filters exclude.
      await this.deps.indexer.removeFile(from, 'deleted', run);
      if (placement === 'excluded') await this.deps.indexer.removeFile(to, 'excluded', run);
      return { ok: true };
    }
    return this.#outcome(await this.deps.indexer.moveFile(from, to, run, signal));
  }

  #outcome(outcome: FileOutcome): ProcessOutcome {
    if (outcome.status !== 'failed') return { ok: true };
    return { ok: false, reason: `${outcome.code}: ${outcome.reason}`, retryable: RETRYABLE_CODES.has(outcome.code) };
  }

  /** Whether a path is still to be indexed now: under an active job, past the filters and the job's pattern. */
  #placement(filePath: string): Placement {
    if (this.deps.ownData.contains(filePath)) return 'excluded';
    const job = this.deps.jobs.jobFor(filePath);
    if (!job || (!job.recursive && path.dirname(filePath) !== job.path)) return 'unwatched';
    if (!this.deps.filters.decide(filePath, this.deps.jobs.roots()).indexed) return 'excluded';
    if (job.file_pattern) {
      let pattern = this.#patterns.get(job.file_pattern);
      if (!pattern) {
        const compiled = compileFilePattern(job.file_pattern);
        pattern = compiled.ok ? compiled.matcher : { pattern: null, matches: () => true };
        this.#patterns.set(job.file_pattern, pattern);
      }
      const rel = relativeToRoot(job.path, filePath);
      if (rel === null || !pattern.matches(rel)) return 'excluded';
    }
    return 'indexed';
  }
}

/** A regular file, not followed through a link (a link is never indexed: lib/no-follow.ts). */
async function isFile(filePath: string): Promise<boolean> {
  try {
    return (await lstat(filePath)).isFile();
  } catch {
    return false;
  }
}
