import { expect } from 'chai';
import { createQueue } from '../../../src/actors/queue/queue.js';
import type { QueueEventOf, QueueStatus } from '../../../src/actors/queue/types.js';
import { ControlledProcessor, FakeClock, MemoryPersistence, ScriptedProcessor, settle } from './fakes.js';
import { BASE_SETTINGS, closeHarnesses, eventTypes, startHarness, summary } from './harness.js';

const A = '/w/a.txt';
const B = '/w/b.txt';
const C = '/w/c.txt';
/** Unix seconds, as the queue shows them, of a clock time in ms. */
const at = (ms: number): number => ms / 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('createQueue', () => {
  afterEach(closeHarnesses);

  describe('item states', () => {
    it('moves an item cooling_down → ready → processing → gone, with an event at each step', async () => {
      const { queue, clock, processor, events } = await startHarness({ settings: { cooldownSeconds: 5 } });
      const t0 = clock.now();
      queue.enqueue({ path: A, action: 'index' });
      const [item] = queue.items();
      expect(item).to.deep.equal({
        id: item?.id,
        file_path: A,
        action: 'index',
        status: 'cooling_down',
        enqueued_at: t0 / 1000,
        cooldown_expires_at: at(t0 + 5000),
        dest_path: null,
        retry_count: 0,
      });
      expect(item?.id).to.match(UUID);
      expect(Object.keys(item ?? {})).to.deep.equal([
        'id', 'file_path', 'action', 'status', 'enqueued_at', 'cooldown_expires_at', 'dest_path', 'retry_count',
      ]);
      expect(queue.status()).to.include({ total_items: 1, cooling_down: 1, ready: 0, processing: 0 });

      await clock.advance(4999);
      expect(processor.calls).to.have.length(0);
      expect(queue.status().cooling_down).to.equal(1);

      queue.pause(); // so the ready state can be seen
      await clock.advance(1);
      expect(queue.status()).to.include({ cooling_down: 0, ready: 1, processing: 0 });
      expect(queue.items()[0]?.status).to.equal('ready');

      queue.resume();
      await settle();
      expect(queue.status()).to.include({ ready: 0, processing: 1 });
      expect(processor.openFor(A).item).to.include({ id: item?.id, status: 'processing', action: 'index' });

      processor.openFor(A).finish();
      await settle();
      expect(queue.status()).to.include({ total_items: 0, processing: 0 });
      expect(eventTypes(events)).to.deep.equal([
        'queue_item_added',
        'queue_paused',
        'queue_item_updated', // ready
        'queue_resumed',
        'queue_item_processing',
        'queue_item_completed',
      ]);
    });

    it('status has the seven fields in the spec order', async () => {
      const { queue } = await startHarness();
      expect(Object.keys(queue.status())).to.deep.equal([
        'paused', 'manually_paused', 'scheduler_paused', 'total_items', 'cooling_down', 'ready', 'processing',
      ]);
    });

    it('restarts the cooldown of a cooling item on a new event, keeping its id and enqueued_at', async () => {
      const { queue, clock, processor } = await startHarness({ settings: { cooldownSeconds: 5 } });
      queue.enqueue({ path: A, action: 'index' });
      const first = queue.items()[0];
      await clock.advanceSeconds(4);
      queue.enqueue({ path: A, action: 'index' });
      const second = queue.items()[0];
      expect(second?.id).to.equal(first?.id);
      expect(second?.enqueued_at).to.equal(first?.enqueued_at);
      expect(second?.cooldown_expires_at).to.equal(at(clock.now() + 5000));
      await clock.advanceSeconds(4.9);
      expect(processor.calls).to.have.length(0);
      await clock.advanceSeconds(0.1);
      expect(processor.calls).to.have.length(1);
    });

    it('sends a ready item back to cooling down when its file changes again', async () => {
      const { queue, clock } = await startHarness({ settings: { cooldownSeconds: 5 } });
      queue.pause();
      queue.enqueue({ path: A, action: 'index' });
      await clock.advanceSeconds(5);
      expect(queue.items()[0]?.status).to.equal('ready');
      queue.enqueue({ path: A, action: 'index' });
      expect(queue.items()[0]?.status).to.equal('cooling_down');
      expect(queue.status()).to.include({ cooling_down: 1, ready: 0 });
    });

    it('uses one timer for many cooling items', async () => {
      const { queue, clock } = await startHarness();
      for (let i = 0; i < 100; i++) queue.enqueue({ path: `/w/f${i}`, action: 'index' });
      expect(clock.pendingTimers).to.be.at.most(2); // the due timer and the persistence flush
    });
  });

  describe('a change while the file is processing', () => {
    it('waits as a second item and starts only after the first finishes', async () => {
      const { queue, clock, processor } = await startHarness({ settings: { cooldownSeconds: 1, maxConcurrency: 4 } });
      queue.enqueue({ path: A, action: 'index' });
      await clock.advanceSeconds(1);
      const first = processor.openFor(A);
      queue.enqueue({ path: A, action: 'delete' });
      expect(summary(queue.items())).to.deep.equal(['delete /w/a.txt', 'index /w/a.txt']);
      await clock.advanceSeconds(10);
      expect(queue.status()).to.include({ ready: 1, processing: 1 });
      expect(processor.open.size).to.equal(1); // not concurrently with the first

      first.finish();
      await settle();
      expect(processor.open.size).to.equal(1);
      expect(processor.openFor(A).item.action).to.equal('delete');
    });

    it('lets the newer item supersede a failed attempt instead of retrying it', async () => {
      const { queue, clock, processor, events } = await startHarness({ settings: { cooldownSeconds: 1 } });
      queue.enqueue({ path: A, action: 'index' });
      await clock.advanceSeconds(1);
      const firstId = queue.items()[0]?.id;
      queue.enqueue({ path: A, action: 'index' });
      processor.openFor(A).finish({ ok: false, retryable: true, reason: 'locked' });
      await settle();
      expect(queue.items()).to.have.length(1);
      expect(queue.items()[0]?.id).to.not.equal(firstId);
      expect(queue.items()[0]?.retry_count).to.equal(0);
      const removed = events.find((e) => e.type === 'queue_item_removed') as QueueEventOf<'queue_item_removed'>;
      expect(removed.item.id).to.equal(firstId);
      expect(removed.cause).to.equal('superseded');
    });
  });

  describe('concurrency', () => {
    it('never runs more than max_concurrency, and a raise starts more at once', async () => {
      const { queue, clock, processor } = await startHarness({ settings: { cooldownSeconds: 1, maxConcurrency: 3 } });
      queue.enqueueMany(Array.from({ length: 10 }, (_, i) => ({ path: `/w/f${i}`, action: 'index' as const })));
      await clock.advanceSeconds(1);
      expect(processor.open.size).to.equal(3);
      expect(queue.status()).to.include({ ready: 7, processing: 3 });

      queue.updateSettings({ maxConcurrency: 5 });
      await settle();
      expect(processor.open.size).to.equal(5);

      queue.updateSettings({ maxConcurrency: 1 });
      await processor.finishAll(); // five finish; only one may start
      expect(processor.open.size).to.equal(1);
      while (processor.open.size > 0) await processor.finishAll();
      expect(processor.maxOpen).to.equal(5);
      expect(processor.calls).to.have.length(10);
      expect(queue.status().total_items).to.equal(0);
    });
  });

  describe('retries', () => {
    it('backs off exponentially, shows retry_count, then fails with the reason', async () => {
      const { queue, clock, processor, events } = await startHarness({
        settings: { cooldownSeconds: 1, maxRetries: 2, retryBaseSeconds: 10, retryMaxSeconds: 15 },
      });
      queue.enqueue({ path: A, action: 'index' });
      await clock.advanceSeconds(1);
      const failure = { ok: false as const, retryable: true, reason: 'database busy' };

      processor.openFor(A).finish(failure);
      await settle();
      const afterFirst = queue.items()[0];
      expect(afterFirst).to.include({ status: 'cooling_down', retry_count: 1, cooldown_expires_at: at(clock.now() + 10_000) });
      expect(queue.get(afterFirst?.id ?? '')?.last_error).to.equal('database busy');
      await clock.advanceSeconds(9.999);
      expect(processor.open.size).to.equal(0);
      await clock.advanceSeconds(0.001);

      processor.openFor(A).finish(failure);
      await settle();
      // 10 × 2 = 20, capped at 15
      expect(queue.items()[0]).to.include({ retry_count: 2, cooldown_expires_at: at(clock.now() + 15_000) });
      await clock.advanceSeconds(15);

      processor.openFor(A).finish(failure);
      await settle();
      expect(queue.items()).to.have.length(0);
      const failed = events.at(-1) as QueueEventOf<'queue_item_failed'>;
      expect(failed.type).to.equal('queue_item_failed');
      expect(failed.reason).to.equal('database busy');
      expect(failed.item).to.include({ file_path: A, retry_count: 3 });
      expect(processor.calls).to.have.length(3); // max_retries 2 = three attempts
    });

    it('fails at once on a non-retryable failure', async () => {
      const { queue, clock, processor, events } = await startHarness({ settings: { cooldownSeconds: 1 } });
      queue.enqueue({ path: A, action: 'index' });
      await clock.advanceSeconds(1);
      processor.openFor(A).finish({ ok: false, retryable: false, reason: 'encrypted PDF' });
      await settle();
      expect(queue.items()).to.have.length(0);
      expect(events.at(-1)).to.deep.include({ type: 'queue_item_failed', reason: 'encrypted PDF' });
    });

    it('treats a throwing processor as a retryable failure and reports it', async () => {
      const { queue, clock, processor, errors } = await startHarness({ settings: { cooldownSeconds: 1 } });
      queue.enqueue({ path: A, action: 'index' });
      await clock.advanceSeconds(1);
      processor.openFor(A).crash(new Error('worker died'));
      await settle();
      expect(queue.items()[0]).to.include({ retry_count: 1, status: 'cooling_down' });
      expect(queue.get(queue.items()[0]?.id ?? '')?.last_error).to.equal('processor error: worker died');
      expect(errors).to.have.length(1);
    });

    it('treats a malformed answer from the processor as a retryable failure', async () => {
      const { queue, clock, processor, errors } = await startHarness({ settings: { cooldownSeconds: 1 } });
      queue.enqueue({ path: B, action: 'index' });
      await clock.advanceSeconds(1);
      processor.openFor(B).finish({ ok: 'yes' } as never);
      await settle();
      expect(queue.items().map((i) => [i.file_path, i.retry_count])).to.deep.equal([[B, 1]]);
      expect(queue.get(queue.items()[0]?.id ?? '')?.last_error).to.equal('processor returned a malformed outcome');
      expect(errors).to.have.length(1);
    });

    it('resets the retry count when the file changes again', async () => {
      const { queue, clock, processor } = await startHarness({ settings: { cooldownSeconds: 1 } });
      queue.enqueue({ path: A, action: 'index' });
      await clock.advanceSeconds(1);
      processor.openFor(A).finish({ ok: false, retryable: true, reason: 'x' });
      await settle();
      expect(queue.items()[0]?.retry_count).to.equal(1);
      queue.enqueue({ path: A, action: 'index' });
      expect(queue.items()[0]).to.include({ retry_count: 0, cooldown_expires_at: at(clock.now() + 1000) });
    });
  });

  describe('pause flags (spec state table)', () => {
    const flags = (s: QueueStatus) => [s.paused, s.manually_paused, s.scheduler_paused];

    it('running → pause → paused manually: items enqueue and cool down but do not start', async () => {
      const { queue, clock, processor } = await startHarness({ settings: { cooldownSeconds: 1 } });
      expect(flags(queue.pause())).to.deep.equal([true, true, false]);
      queue.enqueue({ path: A, action: 'index' });
      await clock.advanceSeconds(5);
      expect(queue.status()).to.include({ ready: 1, processing: 0 });
      expect(processor.calls).to.have.length(0);
      expect(flags(queue.resume())).to.deep.equal([false, false, false]);
      await settle();
      expect(processor.calls).to.have.length(1);
    });

    it('resume while the scheduler pauses leaves the queue paused by the scheduler', async () => {
      const { queue, clock, processor, events } = await startHarness({ settings: { cooldownSeconds: 1 } });
      queue.pause();
      expect(flags(queue.setSchedulerPaused(true))).to.deep.equal([true, true, true]);
      queue.enqueue({ path: A, action: 'index' });
      await clock.advanceSeconds(2);
      expect(flags(queue.resume())).to.deep.equal([true, false, true]);
      await settle();
      expect(processor.calls).to.have.length(0);
      expect(flags(queue.setSchedulerPaused(false))).to.deep.equal([false, false, false]);
      await settle();
      expect(processor.calls).to.have.length(1);
      const pauseEvents = events.filter((e) => e.type === 'queue_paused' || e.type === 'queue_resumed');
      expect(pauseEvents.map((e) => e.type)).to.deep.equal(['queue_paused', 'queue_paused', 'queue_paused', 'queue_resumed']);
    });

    it('scheduler pause and release; a manual pause outlives the scheduler release', async () => {
      const { queue, clock, processor } = await startHarness({ settings: { cooldownSeconds: 1 } });
      expect(flags(queue.setSchedulerPaused(true))).to.deep.equal([true, false, true]);
      queue.enqueue({ path: A, action: 'index' });
      await clock.advanceSeconds(2);
      queue.pause();
      expect(flags(queue.setSchedulerPaused(false))).to.deep.equal([true, true, false]);
      await settle();
      expect(processor.calls).to.have.length(0);
      queue.resume();
      await settle();
      expect(processor.calls).to.have.length(1);
    });

    it('lets in-flight items finish while paused', async () => {
      const { queue, clock, processor } = await startHarness({ settings: { cooldownSeconds: 1, maxConcurrency: 1 } });
      queue.enqueueMany([{ path: A, action: 'index' }, { path: B, action: 'index' }]);
      await clock.advanceSeconds(1);
      queue.pause();
      processor.openFor(A).finish();
      await settle();
      expect(queue.status()).to.include({ total_items: 1, ready: 1, processing: 0 });
      expect(processor.calls).to.have.length(1);
    });

    it('sends no event when a flag is set to what it already is', async () => {
      const { queue, events } = await startHarness();
      queue.pause();
      queue.pause();
      queue.setSchedulerPaused(false);
      expect(eventTypes(events)).to.deep.equal(['queue_paused']);
    });
  });

  describe('removal', () => {
    it('removes by id (true), answers false for an unknown id', async () => {
      const { queue, events } = await startHarness();
      queue.enqueue({ path: A, action: 'index' });
      const id = queue.items()[0]?.id ?? '';
      expect(queue.remove(id)).to.equal(true);
      expect(queue.remove(id)).to.equal(false);
      expect(queue.status().total_items).to.equal(0);
      expect(events.at(-1)).to.deep.include({ type: 'queue_item_removed', cause: 'request' });
    });

    it('aborts a processing item on removal and keeps its path busy until the processor returns', async () => {
      const { queue, clock, processor } = await startHarness({ settings: { cooldownSeconds: 1 } });
      queue.enqueue({ path: A, action: 'index' });
      await clock.advanceSeconds(1);
      const call = processor.openFor(A);
      expect(queue.remove(call.item.id)).to.equal(true);
      expect(call.signal.aborted).to.equal(true);
      expect(queue.status()).to.include({ total_items: 0, processing: 0 });

      queue.enqueue({ path: A, action: 'index' });
      await clock.advanceSeconds(1);
      expect(processor.open.size).to.equal(1); // the aborted call has not returned yet
      call.finish({ ok: true });
      await settle();
      expect(processor.openFor(A).item.id).to.not.equal(call.item.id);
    });

    it('removeWhere drops the items of a watch job; removeUnder drops a directory', async () => {
      const { queue } = await startHarness();
      queue.enqueueMany([
        { path: '/w/one/a', action: 'index', jobId: 1 },
        { path: '/w/one/b', action: 'delete', jobId: 1 },
        { path: '/w/two/a', action: 'index', jobId: 2 },
        { path: '/w/twofold/a', action: 'index', jobId: 3 },
        { path: '/x/c', action: 'move', destPath: '/w/two/c', jobId: 4 },
      ]);
      expect(queue.removeWhere((item) => item.job_id === 1)).to.equal(2);
      expect(queue.removeUnder('/w/two')).to.equal(2);
      expect(summary(queue.items())).to.deep.equal(['index /w/twofold/a']);
    });
  });

  describe('settings', () => {
    it('applies a shorter cooldown to waiting items at once', async () => {
      const { queue, clock, processor } = await startHarness({ settings: { cooldownSeconds: 60 } });
      queue.enqueue({ path: A, action: 'index' });
      await clock.advanceSeconds(10);
      queue.enqueue({ path: B, action: 'index' });
      queue.updateSettings({ cooldownSeconds: 5 });
      await settle();
      expect(summary(processor.calls.map((c) => c.item))).to.deep.equal(['index /w/a.txt']); // 10 s quiet ≥ 5
      expect(queue.items().find((i) => i.file_path === B)?.cooldown_expires_at).to.equal(at(clock.now() + 5000));
      await clock.advanceSeconds(5);
      expect(processor.calls).to.have.length(2);
    });

    it('keeps a retry backoff when the cooldown changes', async () => {
      const { queue, clock, processor } = await startHarness({ settings: { cooldownSeconds: 1, retryBaseSeconds: 30 } });
      queue.enqueue({ path: A, action: 'index' });
      await clock.advanceSeconds(1);
      processor.openFor(A).finish({ ok: false, retryable: true, reason: 'x' });
      await settle();
      const due = queue.items()[0]?.cooldown_expires_at;
      queue.updateSettings({ cooldownSeconds: 0 });
      expect(queue.items()[0]?.cooldown_expires_at).to.equal(due);
    });

    it('rejects bad settings naming the field, and leaves the old ones in place', async () => {
      const { queue } = await startHarness();
      expect(() => queue.updateSettings({ maxConcurrency: 0 })).to.throw(/settings\.maxConcurrency/);
      expect(() => queue.updateSettings({ cooldownSeconds: -1 })).to.throw(/settings\.cooldownSeconds/);
      expect(() => queue.updateSettings({ maxRetries: 1.5 })).to.throw(/settings\.maxRetries/);
      expect(() => queue.updateSettings({ bogus: 1 } as never)).to.throw(/settings\.bogus/);
      expect(queue.settings()).to.include(BASE_SETTINGS);
      expect(() =>
        createQueue({
          persistence: new MemoryPersistence(),
          processor: new ScriptedProcessor(),
          settings: { cooldownSeconds: 1, maxConcurrency: 1, maxRetries: Number.NaN },
        }),
      ).to.throw(/settings\.maxRetries/);
    });
  });

  describe('events in', () => {
    it('rejects malformed events naming the field, changing nothing', async () => {
      const { queue } = await startHarness();
      expect(() => queue.enqueue({ path: 'relative.txt', action: 'index' })).to.throw(/event\.path/);
      expect(() => queue.enqueue({ path: A, action: 'touch' as never })).to.throw(/event\.action/);
      expect(() => queue.enqueue({ path: A, action: 'move' })).to.throw(/event\.destPath/);
      expect(() => queue.enqueue({ path: A, action: 'move', destPath: A })).to.throw(/event\.destPath/);
      expect(() => queue.enqueue({ path: A, action: 'index', destPath: B })).to.throw(/event\.destPath/);
      expect(() => queue.enqueueMany([{ path: C, action: 'index' }, { path: 'x', action: 'index' }])).to.throw();
      expect(queue.items()).to.have.length(0);
    });

    it('refuses events before start()', () => {
      const queue = createQueue({
        persistence: new MemoryPersistence(),
        processor: new ScriptedProcessor(),
        settings: BASE_SETTINGS,
        clock: new FakeClock(),
      });
      expect(() => queue.enqueue({ path: A, action: 'index' })).to.throw(/start\(\)/);
    });
  });

  describe('persistence', () => {
    it('survives a restart: items come back, processing as ready, with their fields', async () => {
      const persistence = new MemoryPersistence();
      const clock = new FakeClock();
      const first = await startHarness({ persistence, clock, settings: { cooldownSeconds: 5, maxConcurrency: 1 } });
      first.queue.enqueueMany([
        { path: A, action: 'index', jobId: 7 },
        { path: B, action: 'move', destPath: C, jobId: 7 },
      ]);
      await clock.advanceSeconds(5); // A processing (concurrency 1), B ready
      await clock.advanceSeconds(1); // let the flush timer write
      expect(first.processor.open.size).to.equal(1);
      const before = first.queue.items();
      expect([...persistence.rows.values()].map((r) => r.status).sort()).to.deep.equal(['processing', 'ready']);
      // A crash: the first queue is simply abandoned (its processing call never returns).

      const second = createQueue({
        persistence,
        processor: new ControlledProcessor(),
        settings: { ...BASE_SETTINGS, maxConcurrency: 1 },
        clock,
      });
      second.pause();
      await second.start();
      const after = second.items();
      expect(after.map((i) => i.id).sort()).to.deep.equal(before.map((i) => i.id).sort());
      for (const item of after) {
        const old = before.find((b) => b.id === item.id);
        expect(item).to.deep.equal({ ...old, status: 'ready' });
      }
      expect(second.get(after[0]?.id ?? '')?.job_id).to.equal(7);
      expect(second.status()).to.include({ total_items: 2, ready: 2, processing: 0 });
      await second.close();
    });

    it('keeps cooldowns across a restart, following the current cooldown setting', async () => {
      const persistence = new MemoryPersistence();
      const clock = new FakeClock();
      const first = await startHarness({ persistence, clock, settings: { cooldownSeconds: 30 } });
      first.queue.enqueue({ path: A, action: 'index' });
      await first.queue.flush();
      await clock.advanceSeconds(10);

      const second = await startHarness({ persistence, clock, settings: { cooldownSeconds: 20 } });
      expect(second.queue.items()[0]).to.include({ status: 'cooling_down', cooldown_expires_at: at(clock.now() + 10_000) });
      await clock.advanceSeconds(9.9);
      expect(second.processor.calls).to.have.length(0);
      await clock.advanceSeconds(0.1);
      expect(second.processor.calls).to.have.length(1);
    });

    it('writes removals and completions, so a restart does not bring them back', async () => {
      const persistence = new MemoryPersistence();
      const { queue, clock, processor } = await startHarness({ persistence, settings: { cooldownSeconds: 1 } });
      queue.enqueueMany([{ path: A, action: 'index' }, { path: B, action: 'index' }, { path: C, action: 'index' }]);
      await queue.flush();
      expect(persistence.rows.size).to.equal(3);
      queue.remove(queue.items().find((i) => i.file_path === C)?.id ?? '');
      await clock.advanceSeconds(1);
      await processor.finishAll();
      await queue.flush();
      expect(persistence.rows.size).to.equal(0);
    });

    it('keeps changes after a failed write and writes them on the next flush', async () => {
      const persistence = new MemoryPersistence();
      const { queue, errors } = await startHarness({ persistence });
      persistence.failWrites = 1;
      queue.enqueue({ path: A, action: 'index' });
      expect(await queue.flush()).to.deep.equal({ ok: false, reason: 'disk full' });
      expect(errors).to.have.length(1);
      expect(persistence.rows.size).to.equal(0);
      expect(await queue.flush()).to.deep.equal({ ok: true });
      expect(persistence.rows.size).to.equal(1);
    });

    it('drops unreadable stored rows, reporting them', async () => {
      const persistence = new MemoryPersistence();
      persistence.rows.set('bad', {
        id: 'bad', file_path: A, action: 'explode' as never, status: 'ready', enqueued_at: 1, cooldown_expires_at: 1,
        dest_path: null, retry_count: 0, job_id: null, last_error: null, last_event_at: null,
      });
      const { queue, errors } = await startHarness({ persistence });
      expect(queue.items()).to.have.length(0);
      expect(String(errors[0])).to.match(/unknown action/);
      await queue.flush();
      expect(persistence.rows.size).to.equal(0);
    });
  });

  describe('close', () => {
    it('waits for in-flight items, writes everything, then takes no more events', async () => {
      const persistence = new MemoryPersistence();
      const { queue, clock, processor } = await startHarness({ persistence, settings: { cooldownSeconds: 1, maxConcurrency: 1 } });
      queue.enqueueMany([{ path: A, action: 'index' }, { path: B, action: 'index' }]);
      await clock.advanceSeconds(1);
      let closed = false;
      const closing = queue.close().then(() => (closed = true));
      await settle();
      expect(closed).to.equal(false);
      processor.openFor(A).finish({ ok: false, retryable: true, reason: 'interrupted' });
      await closing;
      expect(processor.calls).to.have.length(1); // B never started
      expect(queue.enqueue({ path: C, action: 'index' })).to.equal(false);
      const rows = [...persistence.rows.values()];
      expect(rows.map((r) => [r.file_path, r.status, r.retry_count]).sort()).to.deep.equal([
        [A, 'cooling_down', 1],
        [B, 'ready', 0],
      ]);
    });
  });
});
