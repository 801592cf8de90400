/** The queue on the real clock and real timers, with short cooldowns and backoffs. */
import { expect } from 'chai';
import { createQueue, type QueueApi } from '../../../src/actors/queue/queue.js';
import type { ProcessOutcome, QueueEvent, StoredQueueItem } from '../../../src/actors/queue/types.js';
import { MemoryPersistence } from './fakes.js';

describe('createQueue on the real clock', () => {
  let queue: QueueApi | undefined;
  afterEach(async () => {
    await queue?.close();
    queue = undefined;
  });

  it('debounces, processes, retries after a backoff and completes, on real timers', async () => {
    const attempts = new Map<string, number>();
    const started: string[] = [];
    const events: QueueEvent[] = [];
    let done: () => void = () => {};
    const allDone = new Promise<void>((resolve) => (done = resolve));
    const persistence = new MemoryPersistence();
    queue = createQueue({
      persistence,
      processor: {
        async process(item: StoredQueueItem): Promise<ProcessOutcome> {
          started.push(`${item.file_path}#${item.retry_count}`);
          const n = (attempts.get(item.file_path) ?? 0) + 1;
          attempts.set(item.file_path, n);
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (item.file_path === '/r/flaky' && n === 1) return { ok: false, retryable: true, reason: 'first try fails' };
          return { ok: true };
        },
      },
      settings: { cooldownSeconds: 0.05, maxConcurrency: 2, maxRetries: 2, retryBaseSeconds: 0.03 },
      persistenceOptions: { flushIntervalMs: 10 },
      onEvent: (event) => {
        events.push(event);
        if (events.filter((e) => e.type === 'queue_item_completed').length === 3) done();
      },
    });
    await queue.start();
    queue.enqueueMany([
      { path: '/r/one', action: 'index' },
      { path: '/r/two', action: 'delete' },
      { path: '/r/flaky', action: 'index' },
    ]);
    queue.enqueue({ path: '/r/one', action: 'index' }); // restarts /r/one's cooldown
    expect(queue.status()).to.include({ total_items: 3, cooling_down: 3 });

    await allDone;
    expect(started.sort()).to.deep.equal(['/r/flaky#0', '/r/flaky#1', '/r/one#0', '/r/two#0']);
    expect(queue.status()).to.include({ total_items: 0, processing: 0 });
    const flaky = events.filter((e) => 'item' in e && e.item.file_path === '/r/flaky').map((e) => e.type);
    expect(flaky).to.deep.equal([
      'queue_item_added',
      'queue_item_updated', // ready
      'queue_item_processing',
      'queue_item_updated', // failed once: cooling down for the backoff
      'queue_item_updated', // ready again
      'queue_item_processing',
      'queue_item_completed',
    ]);
    await queue.close();
    expect(persistence.rows.size).to.equal(0);
  });
});
