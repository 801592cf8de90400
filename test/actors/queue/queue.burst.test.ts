/** A `git checkout` touching 10,000 files: batched writes, cheap bookkeeping, correct counts throughout. */
import { expect } from 'chai';
import type { QueueFileEvent } from '../../../src/actors/queue/types.js';
import { ScriptedProcessor, settle } from './fakes.js';
import { closeHarnesses, startHarness } from './harness.js';

const N = 10_000;
const burst = (action: 'index' | 'delete'): QueueFileEvent[] =>
  Array.from({ length: N }, (_, i) => ({ path: `/repo/src/file${i}.ts`, action }));

describe('createQueue under a burst', () => {
  afterEach(closeHarnesses);

  it('coalesces 10,000 events into batched writes (one upsert per 1,000 items)', async () => {
    const { queue, persistence } = await startHarness({ settings: { cooldownSeconds: 2 } });
    expect(queue.enqueueMany(burst('index'))).to.equal(N);
    await settle();
    expect(persistence.rows.size).to.equal(N);
    expect(persistence.upsertCalls).to.equal(10);
    expect(persistence.largestBatch).to.equal(1000);

    // The same files touched again (a second checkout): still one item per file, another 10 writes.
    queue.enqueueMany(burst('delete'));
    await settle();
    expect(queue.status()).to.include({ total_items: N, cooling_down: N });
    expect(persistence.upsertCalls).to.equal(20);
    expect([...persistence.rows.values()].every((row) => row.action === 'delete')).to.equal(true);
  });

  it('moves a burst that comes due at once to ready in slices, yielding between them', async () => {
    const { queue, clock } = await startHarness({
      settings: { cooldownSeconds: 2 },
      persistenceOptions: { flushIntervalMs: 60_000 }, // keep the flush timer out of the way
    });
    queue.pause();
    queue.enqueueMany(burst('index').slice(0, 2500));
    await clock.advance(1999);
    const readyAfterEachTick: number[] = [];
    while (await clock.runNextTimer(clock.now() + 1)) readyAfterEachTick.push(queue.status().ready);
    expect(readyAfterEachTick).to.deep.equal([1000, 2000, 2500]);
  });

  it('batches writes too when the events arrive one message at a time', async () => {
    const { queue, persistence } = await startHarness({ settings: { cooldownSeconds: 2 } });
    const events = burst('index');
    for (let i = 0; i < N; i += 50) {
      queue.enqueueMany(events.slice(i, i + 50)); // like the watcher posting small batches
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await settle();
    expect(persistence.rows.size).to.equal(N);
    expect(persistence.upsertCalls).to.be.at.most(12);
  });

  it('answers status with exact counts while a burst is enqueued, and drains it with bounded writes', async () => {
    const processor = new ScriptedProcessor();
    const { queue, clock, persistence, events } = await startHarness({
      processor,
      settings: { cooldownSeconds: 2, maxConcurrency: 4 },
    });
    const all = burst('index');
    for (let i = 0; i < N; i += 1000) {
      queue.enqueueMany(all.slice(i, i + 1000));
      expect(queue.status()).to.include({ total_items: i + 1000, cooling_down: i + 1000, processing: 0 });
    }
    await clock.advanceSeconds(2);
    for (let round = 0; round < 50 && queue.status().total_items > 0; round++) await clock.advance(250);
    await queue.flush();
    expect(queue.status().total_items).to.equal(0);
    expect(processor.seen).to.have.length(N);
    expect(persistence.rows.size).to.equal(0);
    expect(events.filter((e) => e.type === 'queue_item_completed')).to.have.length(N);
    // added, ready, processing and completion of 10,000 items, in batches of up to 1,000
    expect(persistence.upsertCalls + persistence.removeCalls).to.be.at.most(60);
  });
});
