import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { QueueItem } from '../../../src/actors/queue/types.js';
import { eventually } from '../../helpers/assert.js';
import { forEachEngine } from '../../helpers/engines.js';
import { tempTree, type TempTree } from '../../helpers/files.js';
import { repoRoot } from '../../helpers/shared.js';
import { available } from '../../../src/actors/scheduler/readings.js';
import { snapshot } from '../scheduler/fixtures.js';
import { fileRecord, indexed, pastCatchUpSlack, queueIdle, startWatchService, type WatchHarness } from '../watcher/helpers.js';

forEachEngine('QueueService', (engine) => {
  let h: WatchHarness;
  let tree: TempTree;

  beforeEach(async () => {
    tree = await tempTree({ 'seed.txt': 'The seed file of the watched folder.' });
  });
  afterEach(async () => {
    await h.t.destroy();
    await tree.remove();
  });

  it('keeps queued items and the manual pause across a restart; an item that was processing comes back ready', async function () {
    // Two restarts and a dozen conditions: at load 14 (issue 16, two busy loops on 2 cores) it took over 60 s, the
    // mocha default, while every condition was still within its own deadline.
    this.timeout(240_000);
    // The file of an item as if the service had died while processing it (a graceful stop lets it finish first).
    await writeFile(tree.path('three.txt'), 'Nightjars hunt moths at dusk over the heath.');
    h = await startWatchService(engine);
    const jobId = (await h.t.request('POST', '/api/watch/', { directory_path: tree.root })).body.job_id as number;
    await h.t.service.watcher.settled(jobId);
    await queueIdle(h.t);
    await h.t.request('POST', '/api/queue/pause');
    await writeFile(tree.path('one.txt'), 'Kestrels hover above the motorway verges.');
    await writeFile(tree.path('two.txt'), 'Swifts sleep on the wing during migration.');
    await eventually(() => h.t.service.queue.status().ready === 2);
    // A start within the watcher's catch-up slack of a change reports the file changed, and its item cools down.
    await pastCatchUpSlack(tree.path('one.txt'), tree.path('two.txt'), tree.path('three.txt'));
    const now = Date.now() / 1000;
    const interrupted = { id: randomUUID(), file_path: tree.path('three.txt'), action: 'index' as const, status: 'processing' as const, enqueued_at: now, cooldown_expires_at: now, dest_path: null, retry_count: 0, job_id: jobId, last_error: null, last_event_at: now };
    await h.t.service.queue.flush();
    const before = h.t.service.queue.items();

    await h.restart();
    expect(h.t.service.queue.status().manually_paused).to.equal(true);
    const restored = (await h.t.request('GET', '/api/queue/items')).body.items as QueueItem[];
    expect(restored.map((i) => i.id).sort()).to.deep.equal(before.map((i) => i.id).sort());
    expect(restored.every((i) => i.status === 'ready')).to.equal(true);

    // The interrupted item: written as 'processing', loaded by a restart as 'ready'.
    await h.t.service.store.api.queue.upsert([interrupted]);
    await h.restart();
    const status = (await h.t.request('GET', '/api/queue/status')).body;
    expect(status).to.include({ paused: true, manually_paused: true, total_items: 3, ready: 3, processing: 0 });
    const third = ((await h.t.request('GET', '/api/queue/items')).body.items as QueueItem[]).find((i) => i.id === interrupted.id);
    expect(third).to.include({ status: 'ready', file_path: tree.path('three.txt') });

    await h.t.request('POST', '/api/queue/resume');
    for (const name of ['one.txt', 'two.txt', 'three.txt']) await indexed(h.t, tree.path(name));
    await queueIdle(h.t);
    await h.t.service.queue.flush();
    expect(await h.t.service.store.api.queue.loadAll()).to.deep.equal([]);
  });

  it('after a restart with the scheduler pausing, nothing is processed until its rules pass', async function () {
    this.timeout(240_000); // a restart: 57 s at load 14, see above
    h = await startWatchService(engine);
    const jobId = (await h.t.request('POST', '/api/watch/', { directory_path: tree.root })).body.job_id as number;
    await h.t.service.watcher.settled(jobId);
    await queueIdle(h.t);
    h.provider.current = snapshot({ cpu_percent: available(97) });
    const put = await h.t.request('PUT', '/api/queue/scheduler', { enabled: true, rules: [{ rule: 'cpu_percent', operator: '<=', value: 50 }] });
    expect(put.body).to.include({ paused_by_scheduler: true });
    await writeFile(tree.path('busy.txt'), 'Written while the machine was busy.');
    await eventually(() => h.t.service.queue.status().ready === 1);
    await pastCatchUpSlack(tree.path('busy.txt'));

    await h.restart();
    // The first check ran before the queue started: it comes up paused by the scheduler, the item waiting.
    expect(h.t.service.queue.status()).to.include({ paused: true, manually_paused: false, scheduler_paused: true, ready: 1, processing: 0 });
    await new Promise((r) => setTimeout(r, 500));
    expect(await fileRecord(h.t, tree.path('busy.txt'))).to.equal(null);

    h.provider.current = snapshot({ cpu_percent: available(5) });
    expect((await h.t.request('GET', '/api/queue/scheduler')).body).to.include({ conditions_met: true, paused_by_scheduler: false });
    await indexed(h.t, tree.path('busy.txt'));
  });

  it('retries a retryable failure with exponential backoff, then gives up with the reason', async function () {
    this.timeout(120_000);
    h = await startWatchService(engine, { pipelineWorker: path.join(repoRoot, 'dist', 'test', 'fixtures', 'misbehaving.worker.js') });
    await h.t.request('PUT', '/api/settings/', { 'queue.max_retries': 1 });
    const jobId = (await h.t.request('POST', '/api/watch/', { directory_path: tree.root })).body.job_id as number;
    await h.t.service.watcher.settled(jobId);
    await queueIdle(h.t);
    const file = tree.path('crash.txt');
    await writeFile(file, 'This file kills the worker thread that reads it.');
    // (A crashed pipeline thread is replaced, and the new one loads the embedder: slow on a busy machine.)
    const failed = await eventually(() => h.events.find((e) => e.type === 'queue_item_failed' && (e.data as { item: QueueItem }).item.file_path === file), 80_000);
    const history = h.events
      .filter((e) => e.type.startsWith('queue_item_') && (e.data as { item: QueueItem }).item.file_path === file)
      .map((e) => {
        const item = (e.data as { item: QueueItem }).item;
        return { type: e.type, status: item.status, retry_count: item.retry_count, wait: item.cooldown_expires_at - Date.parse(e.time) / 1000 };
      });
    const retry = history.find((e) => e.type === 'queue_item_updated' && e.retry_count === 1 && e.status === 'cooling_down');
    expect(retry, JSON.stringify(history)).to.not.equal(undefined);
    expect(retry!.wait).to.be.closeTo(2, 0.5); // the first backoff: 2 s
    expect(history.filter((e) => e.type === 'queue_item_processing')).to.have.length(2);
    expect((failed!.data as { reason: string; item: QueueItem }).reason).to.match(/^worker_crashed: /);
    expect((failed!.data as { item: QueueItem }).item.retry_count).to.equal(2);
    const [known] = await h.t.service.store.api.files.known([file]);
    expect(known).to.include({ status: 'failed' });
  });
});
