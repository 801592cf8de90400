/**
 * Follows an indexing run on the service's event stream until it completes: a progress bar on a terminal
 * (cli-progress, on stderr, so stdout stays clean), a progress line every few seconds otherwise, and the files
 * that failed with their reasons at the end. Ctrl-C stops following; the run goes on in the service.
 */
import cliProgress from 'cli-progress';
import type { EventMap, IndexRunProgress } from '../events/types.js';
import { LOG_INTERVAL_MS, progressLine } from '../indexing/run.js';
import { formatDuration } from '../lib/format.js';
import type { EventSubscription, ServiceClient, ServiceEvent } from './client.js';
import type { CliIo } from './program.js';

const RUN_EVENTS = ['index_run_started', 'index_run_progress', 'index_run_completed', 'file_failed'] as const;
/** Failures listed at the end; the rest are counted. */
const FAILURES_SHOWN = 20;

export type RunMatch = string | ((started: EventMap['index_run_started']) => boolean);

export interface FollowedRun {
  completed: EventMap['index_run_completed'];
  failures: { path: string; code: string; error: string }[];
}

/**
 * Subscribed before the run is started (so its first event cannot be missed): events wait in a buffer until
 * follow() says which run they are about.
 */
export class RunFollower {
  readonly #buffer: ServiceEvent[] = [];
  #listener: ((e: ServiceEvent) => void) | null = null;
  #subscription: EventSubscription | null = null;

  static async open(client: ServiceClient): Promise<RunFollower> {
    const follower = new RunFollower();
    follower.#subscription = await client.events(RUN_EVENTS, (e) => (follower.#listener ? follower.#listener(e) : follower.#buffer.push(e)));
    return follower;
  }

  close(): void {
    this.#subscription?.close();
  }

  /** Resolves when the run completes, or with null when Ctrl-C stops the following first. */
  follow(match: RunMatch, label: string, io: CliIo): Promise<FollowedRun | null> {
    const display = new RunDisplay(label, io);
    const failures: FollowedRun['failures'] = [];
    let runId = typeof match === 'string' ? match : null;
    return new Promise((resolve) => {
      const finish = (result: FollowedRun | null) => {
        display.stop();
        io.signal.removeEventListener('abort', interrupted);
        this.#listener = null;
        resolve(result);
      };
      const interrupted = () => finish(null);
      io.signal.addEventListener('abort', interrupted, { once: true });
      this.#listener = (e) => {
        if (runId === null) {
          if (e.type === 'index_run_started' && typeof match === 'function' && match(e.data)) {
            runId = e.data.run_id;
            display.start();
          }
          return;
        }
        if (!('run_id' in e.data) || e.data.run_id !== runId) return;
        if (e.type === 'index_run_started') display.start();
        else if (e.type === 'index_run_progress') display.update(e.data);
        else if (e.type === 'file_failed') failures.push({ path: e.data.path, code: e.data.code, error: e.data.error });
        else if (e.type === 'index_run_completed') finish({ completed: e.data, failures });
      };
      if (io.signal.aborted) return interrupted();
      for (const e of this.#buffer.splice(0)) this.#listener?.(e);
    });
  }
}

/** A bar on a terminal; a line every few seconds into a pipe or a log. */
class RunDisplay {
  #bar: cliProgress.SingleBar | null = null;
  #lastLine = 0;
  readonly #tty: boolean;

  constructor(
    private readonly label: string,
    private readonly io: CliIo,
  ) {
    this.#tty = io.stderr.isTTY === true;
  }

  start(): void {
    if (!this.#tty) {
      this.io.stderr.write(`${this.label}: started\n`);
      return;
    }
    this.#bar ??= new cliProgress.SingleBar(
      {
        stream: this.io.stderr,
        format: `${this.label} |{bar}| {percent} {done} of {of} files | {rate} files/s | {left} | {failed} failed`,
        hideCursor: true,
        fps: 5,
      },
      cliProgress.Presets.shades_classic,
    );
    // An empty bar until the files are counted (a total of 0 would draw a full one).
    this.#bar.start(1, 0, { percent: 'counting…', done: 0, of: '?', rate: 0, left: 'time left unknown', failed: 0 });
  }

  update(p: IndexRunProgress): void {
    if (this.#bar) {
      if (p.total > 0 && this.#bar.getTotal() !== p.total) this.#bar.setTotal(p.total);
      this.#bar.update(p.processed, {
        percent: p.total_final && p.total > 0 ? `${Math.floor((100 * p.processed) / p.total)}%` : 'counting…',
        done: p.processed,
        of: p.total_final ? p.total : `${p.total}+`,
        rate: p.files_per_second,
        left: p.eta_seconds === null ? 'time left unknown' : `${formatDuration(p.eta_seconds)} left`,
        failed: p.failed,
      });
      return;
    }
    const now = Date.now();
    if (now - this.#lastLine < LOG_INTERVAL_MS) return;
    this.#lastLine = now;
    this.io.stderr.write(`${progressLine(this.label, p)}\n`);
  }

  stop(): void {
    this.#bar?.stop();
    this.#bar = null;
  }
}

/** The summary of a followed run, and its failures (the first few, with their reasons). */
export function runSummary(run: FollowedRun): string {
  const c = run.completed;
  const lines = [
    `${c.cancelled ? 'Cancelled' : 'Done'}: ${c.processed} of ${c.total} files in ${formatDuration(c.duration_seconds)} ` +
      `(${c.indexed} indexed, ${c.skipped} unchanged, ${c.failed} failed, ${c.removed} removed).`,
  ];
  if (run.failures.length > 0) {
    lines.push(`Failed files:`);
    for (const f of run.failures.slice(0, FAILURES_SHOWN)) lines.push(`  ${f.path}: ${f.code}: ${f.error}`);
    if (c.failed > FAILURES_SHOWN) lines.push(`  … and ${c.failed - FAILURES_SHOWN} more (filesift files ID shows each one's reason)`);
  }
  return lines.join('\n');
}
