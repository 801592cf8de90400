import type { EventBus } from '../events/bus.js';
import type { EventMap } from '../events/types.js';
import { IndexRun } from '../indexing/run.js';

export interface RecordedFailure {
  code: string;
  error: string;
}

/**
 * The indexing run of a busy period of the queue (kind 'queue', path ''): it starts with the first item
 * processed after the queue was idle and completes when nothing is processing any more, so clients follow
 * queue work with the same run events as scans. It also remembers why a file failed, for the queue's
 * retry decision (the indexer reports failures as events, not as return values).
 */
export class QueueRun extends IndexRun {
  readonly #failures = new Map<string, RecordedFailure>();

  constructor(bus: EventBus) {
    super(bus, 'queue', '', false);
  }

  override fileFailed(data: Omit<EventMap['file_failed'], 'run_id'>): void {
    super.fileFailed(data);
    this.#failures.set(data.path, { code: data.code, error: data.error });
  }

  /** The failure recorded for a path since the last call, and forgets it. */
  takeFailure(path: string): RecordedFailure | null {
    const failure = this.#failures.get(path) ?? null;
    this.#failures.delete(path);
    return failure;
  }
}
