import { expect } from 'chai';
import { PersistBuffer } from '../../../src/actors/queue/persist-buffer.js';
import type { StoredQueueItem } from '../../../src/actors/queue/types.js';
import { FakeClock, MemoryPersistence, settle } from './fakes.js';

interface Thing {
  id: string;
  retries: number;
}

const snapshot = (thing: Thing): StoredQueueItem => ({
  id: thing.id,
  file_path: `/w/${thing.id}`,
  action: 'index',
  status: 'cooling_down',
  enqueued_at: 1,
  cooldown_expires_at: 2,
  dest_path: null,
  retry_count: thing.retries,
  job_id: null,
  last_error: null,
  last_event_at: 1,
});

function setup(options = { flushIntervalMs: 100, maxBatchSize: 10 }) {
  const clock = new FakeClock();
  const port = new MemoryPersistence();
  const errors: unknown[] = [];
  const buffer = new PersistBuffer<Thing>(port, clock, options, snapshot, (error) => errors.push(error));
  return { clock, port, buffer, errors };
}

describe('PersistBuffer', () => {
  it('writes only the latest state of an item, once, after the interval', async () => {
    const { clock, port, buffer } = setup();
    const thing = { id: 'a', retries: 0 };
    for (let i = 1; i <= 5; i++) {
      thing.retries = i;
      buffer.markUpsert(thing.id, thing);
    }
    await clock.advance(99);
    expect(port.upsertCalls).to.equal(0);
    await clock.advance(1);
    expect(port.upsertCalls).to.equal(1);
    expect(port.rows.get('a')?.retry_count).to.equal(5);
  });

  it('flushes at once when a batch is full, in calls of at most maxBatchSize', async () => {
    const { port, buffer } = setup();
    for (let i = 0; i < 25; i++) buffer.markUpsert(`t${i}`, { id: `t${i}`, retries: 0 });
    await settle(); // no clock advance: the full batch started the flush
    expect(port.rows.size).to.equal(25);
    expect(port.upsertCalls).to.equal(3);
    expect(port.largestBatch).to.equal(10);
  });

  it('skips the delete of an item that was never written, and writes the delete of one that was', async () => {
    const { port, buffer } = setup();
    buffer.markUpsert('a', { id: 'a', retries: 0 });
    buffer.markUpsert('b', { id: 'b', retries: 0 });
    buffer.markRemove('b');
    await buffer.flush();
    expect([...port.rows.keys()]).to.deep.equal(['a']);
    expect(port.removeCalls).to.equal(0);
    buffer.markRemove('a');
    await buffer.flush();
    expect(port.rows.size).to.equal(0);
    expect(port.removeCalls).to.equal(1);
  });

  it('deletes ids it was told came from the store', async () => {
    const { port, buffer } = setup();
    port.rows.set('old', snapshot({ id: 'old', retries: 0 }));
    buffer.markStored(['old']);
    buffer.markRemove('old');
    await buffer.flush();
    expect(port.rows.size).to.equal(0);
  });

  it('keeps a failed batch and retries it on the interval, not in a tight loop', async () => {
    const { clock, port, buffer, errors } = setup();
    port.failWrites = 1;
    for (let i = 0; i < 12; i++) buffer.markUpsert(`t${i}`, { id: `t${i}`, retries: 0 });
    await settle();
    expect(errors).to.have.length(1);
    expect(port.rows.size).to.equal(0);
    expect(buffer.pending).to.equal(12);
    await clock.advance(100);
    expect(port.rows.size).to.equal(12);
    expect(buffer.pending).to.equal(0);
  });

  it('does not resurrect an item removed while its write was failing', async () => {
    const { port, buffer } = setup();
    port.failWrites = 1;
    const release = port.hold();
    buffer.markUpsert('a', { id: 'a', retries: 0 });
    const failing = buffer.flush();
    await settle(); // the write of 'a' is under way
    buffer.markRemove('a');
    release();
    expect((await failing).ok).to.equal(false);
    await buffer.flush();
    expect(port.rows.size).to.equal(0);
  });

  it('close writes what is pending', async () => {
    const { port, buffer } = setup();
    buffer.markUpsert('a', { id: 'a', retries: 0 });
    expect(await buffer.close()).to.deep.equal({ ok: true });
    expect(port.rows.size).to.equal(1);
  });
});
