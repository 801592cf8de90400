import type { AnyBusEvent } from '../../../src/events/types.js';
import type { WatcherTuning } from '../../../src/actors/watcher/protocol.js';
import type { QueueItem } from '../../../src/actors/queue/types.js';
import { stat } from 'node:fs/promises';
import { CATCH_UP_SLACK_MS } from '../../../src/actors/watcher/watcher-core.js';
import { FakeProvider } from '../scheduler/fixtures.js';
import { eventually } from '../../helpers/assert.js';
import type { TestEngine } from '../../helpers/engines.js';
import { startTestService, type TestService } from '../../helpers/service.js';

/** Watcher tuned for tests: fast batches and rename pairing, quick polling. */
export const WATCH_TEST_OPTIONS: { watcherTuning: Partial<WatcherTuning>; queueFlushIntervalMs: number } = {
  watcherTuning: { batchIntervalMs: 30, moveQuietMs: 250, pollIntervalMs: 200 },
  queueFlushIntervalMs: 30,
};

export interface WatchHarness {
  t: TestService;
  events: AnyBusEvent[];
  provider: FakeProvider;
  restart(): Promise<void>;
}

/** A real service with a short queue cooldown, a scheduler fed by a fake provider, and every event recorded. */
export async function startWatchService(engine: TestEngine, extra: Partial<typeof WATCH_TEST_OPTIONS> & Record<string, unknown> = {}): Promise<WatchHarness> {
  const provider = new FakeProvider();
  const options = { ...WATCH_TEST_OPTIONS, schedulerProvider: provider, ...extra };
  const harness: WatchHarness = {
    t: await startTestService(engine, {}, undefined, options),
    events: [],
    provider,
    async restart() {
      harness.t = await harness.t.restart();
      // The watched folders are watched (and their events published) while the service starts: those too.
      const { bus } = harness.t.service;
      harness.events.push(...bus.since(0).events);
      bus.subscribe((e) => harness.events.push(e));
    },
  };
  harness.t.service.bus.subscribe((e) => harness.events.push(e));
  const res = await harness.t.request('PUT', '/api/settings/', { 'queue.cooldown_seconds': 0.2 });
  if (res.status !== 200) throw new Error(`settings: ${JSON.stringify(res.body)}`);
  return harness;
}

export async function fileRecord(t: TestService, filePath: string): Promise<Record<string, unknown> | null> {
  const [known] = await t.service.store.api.files.known([filePath]);
  if (!known) return null;
  const res = await t.request('GET', `/api/files/${known.id}`);
  return res.status === 200 ? res.body : null;
}

/** Waits until the file is indexed (optionally: with a summary matching `summary`). */
export async function indexed(t: TestService, filePath: string, summary?: RegExp, timeoutMs = 20_000): Promise<Record<string, unknown>> {
  const found = await eventually(async () => {
    const record = await fileRecord(t, filePath);
    if (!record || record.status !== 'indexed') return null;
    if (summary && !summary.test(String(record.summary) + String(record.title))) return null;
    return record;
  }, timeoutMs);
  return found!;
}

export function gone(t: TestService, filePath: string, timeoutMs = 20_000): Promise<boolean> {
  return eventually(async () => (await t.service.store.api.files.known([filePath])).length === 0, timeoutMs);
}

/** Statuses a path's queue items went through, from the queue events. */
export function queueHistory(events: AnyBusEvent[], filePath: string): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (!e.type.startsWith('queue_item_')) continue;
    const data = e.data as { item: QueueItem };
    if (data.item.file_path !== filePath && data.item.dest_path !== filePath) continue;
    out.push(`${e.type.slice('queue_item_'.length)}:${data.item.action}:${data.item.status}`);
  }
  return out;
}

export async function queueIdle(t: TestService, timeoutMs = 30_000): Promise<void> {
  await eventually(async () => {
    await t.service.watcher.drain();
    const s = t.service.queue.status();
    return s.total_items === 0 && t.service.indexing.activeRuns.length === 0;
  }, timeoutMs, 50);
}

/**
 * Waits until the files are older than a starting watcher's catch-up slack (watcher-core.ts): a start within it of a
 * file's change reports that file changed (its queue item cools down again), which a test of what a restart keeps
 * must not meet by chance; a start takes well under the slack now.
 */
export async function pastCatchUpSlack(...files: string[]): Promise<void> {
  const changed = Math.max(...(await Promise.all(files.map(async (f) => Math.max((await stat(f)).ctimeMs, (await stat(f)).mtimeMs)))));
  await eventually(() => Date.now() > changed + CATCH_UP_SLACK_MS + 100, CATCH_UP_SLACK_MS * 3, 50);
}
