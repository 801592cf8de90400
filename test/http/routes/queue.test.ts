import { expect } from 'chai';
import { writeFile } from 'node:fs/promises';
import type { QueueItem } from '../../../src/actors/queue/types.js';
import { eventually } from '../../helpers/assert.js';
import { forEachEngine } from '../../helpers/engines.js';
import { tempTree, type TempTree } from '../../helpers/files.js';
import { openEventStream } from '../../helpers/sse.js';
import { snapshot } from '../../actors/scheduler/fixtures.js';
import { available } from '../../../src/actors/scheduler/readings.js';
import { gone, indexed, queueIdle, startWatchService, type WatchHarness } from '../../actors/watcher/helpers.js';

const STATUS_KEYS = ['paused', 'manually_paused', 'scheduler_paused', 'total_items', 'cooling_down', 'ready', 'processing'];
const ITEM_KEYS = ['id', 'file_path', 'action', 'status', 'enqueued_at', 'cooldown_expires_at', 'dest_path', 'retry_count'];

forEachEngine('queue routes', (engine) => {
  let h: WatchHarness;
  let tree: TempTree;
  let jobId: number;

  before(async () => {
    h = await startWatchService(engine);
    tree = await tempTree({ 'seed.txt': 'The seed file of the watched folder.' });
    const res = await h.t.request('POST', '/api/watch/', { directory_path: tree.root });
    jobId = res.body.job_id as number;
    await h.t.service.watcher.settled(jobId);
    await queueIdle(h.t);
  });
  after(async () => {
    await h.t.destroy();
    await tree.remove();
  });
  afterEach(async () => {
    await h.t.request('POST', '/api/queue/resume');
    await h.t.request('PUT', '/api/queue/scheduler', { enabled: false, rules: [] });
    h.provider.current = snapshot();
    await queueIdle(h.t);
  });

  it('GET /api/queue/status answers the seven values in the spec order', async () => {
    const res = await h.t.request('GET', '/api/queue/status');
    expect(res.status).to.equal(200);
    expect(Object.keys(res.body)).to.deep.equal(STATUS_KEYS);
    expect(res.body).to.deep.equal({ paused: false, manually_paused: false, scheduler_paused: false, total_items: 0, cooling_down: 0, ready: 0, processing: 0 });
  });

  it('pause and resume take no body: a field sent anyway (it would be ignored) is a 400 naming it', async () => {
    for (const route of ['/api/queue/pause', '/api/queue/resume']) {
      const res = await h.t.request('POST', route, { minutes: 5 });
      expect(res.status, route).to.equal(400);
      expect(res.body.message).to.match(/takes no body fields, got field 'minutes'/);
    }
    expect((await h.t.request('GET', '/api/queue/status')).body.paused).to.equal(false);
  });

  it('pause keeps taking events but processes nothing; items are listed with the spec fields; resume processes them', async () => {
    const stream = await openEventStream(`${h.t.url}/api/updates?types=queue_paused,queue_resumed`);
    try {
      const paused = await h.t.request('POST', '/api/queue/pause');
      expect(paused.status).to.equal(200);
      expect(paused.body).to.include({ paused: true, manually_paused: true, scheduler_paused: false });
      await stream.next((e) => e.event === 'queue_paused');

      await writeFile(tree.path('one.txt'), 'Otters build dens along quiet river banks.');
      await writeFile(tree.path('two.txt'), 'Beavers build dams across small streams.');
      await eventually(async () => ((await h.t.request('GET', '/api/queue/status')).body.ready as number) === 2);
      const items = (await h.t.request('GET', '/api/queue/items')).body.items as QueueItem[];
      expect(items.map((i) => i.file_path).sort()).to.deep.equal([tree.path('one.txt'), tree.path('two.txt')]);
      for (const item of items) {
        expect(Object.keys(item)).to.deep.equal(ITEM_KEYS);
        expect(item).to.include({ action: 'index', status: 'ready', dest_path: null, retry_count: 0 });
        expect(item.id).to.match(/^[0-9a-f-]{36}$/);
        // The cooldown runs from the file's last event (writing a file may report an add, then a change).
        expect(item.cooldown_expires_at).to.be.at.least(item.enqueued_at + 0.2 - 0.001).and.below(item.enqueued_at + 5);
        expect(item.enqueued_at).to.be.closeTo(Date.now() / 1000, 30);
      }
      await new Promise((r) => setTimeout(r, 400));
      expect((await h.t.request('GET', '/api/queue/status')).body).to.include({ total_items: 2, ready: 2, processing: 0 });

      const resumed = await h.t.request('POST', '/api/queue/resume');
      expect(resumed.body).to.include({ paused: false, manually_paused: false });
      await stream.next((e) => e.event === 'queue_resumed');
      await indexed(h.t, tree.path('one.txt'));
      await indexed(h.t, tree.path('two.txt'));
    } finally {
      stream.close();
    }
  });

  it('DELETE /api/queue/items/{id}: 200 removes it, 404 when unknown, 400 when not a UUID', async () => {
    await h.t.request('POST', '/api/queue/pause');
    await writeFile(tree.path('doomed.txt'), 'This change will be dropped from the queue.');
    const item = await eventually(async () => ((await h.t.request('GET', '/api/queue/items')).body.items as QueueItem[]).find((i) => i.file_path === tree.path('doomed.txt')));
    const res = await h.t.request('DELETE', `/api/queue/items/${item!.id}`);
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ success: true, item_id: item!.id });
    expect((await h.t.request('GET', '/api/queue/items')).body.items).to.deep.equal([]);
    expect(h.events.some((e) => e.type === 'queue_item_removed' && (e.data as { cause: string }).cause === 'request')).to.equal(true);
    // Removed for good: it is not in the store either.
    expect((await h.t.service.store.api.queue.loadAll()).map((i) => i.id)).to.not.include(item!.id);

    const again = await h.t.request('DELETE', `/api/queue/items/${item!.id}`);
    expect(again.status).to.equal(404);
    expect(again.body).to.include({ success: false, item_id: item!.id });
    const bad = await h.t.request('DELETE', '/api/queue/items/not-a-uuid');
    expect(bad.status).to.equal(400);
    expect(bad.body.message).to.match(/UUID/);
  });

  it('follows the state table: a resume while the scheduler pauses leaves the queue paused by the scheduler', async () => {
    h.provider.current = snapshot({ cpu_percent: available(95) });
    const put = await h.t.request('PUT', '/api/queue/scheduler', { enabled: true, rules: [{ rule: 'cpu_percent', operator: '<=', value: 50 }] });
    expect(put.status).to.equal(200);
    expect(put.body).to.include({ conditions_met: false, paused_by_scheduler: true });
    expect((await h.t.request('GET', '/api/queue/status')).body).to.include({ paused: true, manually_paused: false, scheduler_paused: true });
    await eventually(() => h.events.some((e) => e.type === 'scheduler_paused'));

    expect((await h.t.request('POST', '/api/queue/pause')).body).to.include({ paused: true, manually_paused: true, scheduler_paused: true });
    const resumed = await h.t.request('POST', '/api/queue/resume');
    expect(resumed.body).to.include({ paused: true, manually_paused: false, scheduler_paused: true });

    await writeFile(tree.path('held.txt'), 'Held back while the machine is busy.');
    await eventually(() => h.t.service.queue.status().ready === 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(h.t.service.queue.status().processing).to.equal(0);

    // Conditions pass again: the next check (here: a GET, which reads now) resumes the queue.
    h.provider.current = snapshot({ cpu_percent: available(10) });
    const get = await h.t.request('GET', '/api/queue/scheduler');
    expect(get.body).to.include({ conditions_met: true, paused_by_scheduler: false });
    expect((await h.t.request('GET', '/api/queue/status')).body).to.include({ paused: false, scheduler_paused: false });
    await eventually(() => h.events.some((e) => e.type === 'scheduler_resumed'));
    await indexed(h.t, tree.path('held.txt'));
  });

  it('a file that cannot be indexed (corrupt: not worth a retry) is marked failed with its reason and an event', async () => {
    await h.t.request('PUT', '/api/settings/', { 'queue.max_retries': 0 });
    try {
      await writeFile(tree.path('broken.pdf'), '%PDF-1.7\nnot really a pdf at all');
      const failed = await eventually(() => h.events.find((e) => e.type === 'queue_item_failed' && (e.data as { item: QueueItem }).item.file_path === tree.path('broken.pdf')), 20_000);
      expect((failed!.data as { reason: string }).reason).to.match(/^corrupt: /);
      const record = await indexed(h.t, tree.path('seed.txt'));
      expect(record.status).to.equal('indexed');
      const [known] = await h.t.service.store.api.files.known([tree.path('broken.pdf')]);
      expect(known).to.include({ status: 'failed' });
    } finally {
      await h.t.request('PUT', '/api/settings/', { 'queue.max_retries': 3 });
    }
  });

  it('applies queue settings live', async () => {
    await h.t.request('POST', '/api/queue/pause');
    await h.t.request('PUT', '/api/settings/', { 'queue.cooldown_seconds': 3600 });
    try {
      await writeFile(tree.path('slow.txt'), 'A change that waits an hour.');
      await eventually(() => h.t.service.queue.status().cooling_down === 1);
      await new Promise((r) => setTimeout(r, 400));
      expect(h.t.service.queue.status().cooling_down).to.equal(1);
    } finally {
      await h.t.request('PUT', '/api/settings/', { 'queue.cooldown_seconds': 0.2 });
    }
    // The shorter cooldown applies to the waiting item at once.
    await eventually(() => h.t.service.queue.status().ready === 1);
    await h.t.request('POST', '/api/queue/resume');
    await indexed(h.t, tree.path('slow.txt'));
    await gone(h.t, tree.path('never-existed.txt'));
  });
});
