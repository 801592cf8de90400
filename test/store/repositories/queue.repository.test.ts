import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { StoredQueueItem } from '../../../src/actors/queue/types.js';
import { forEachEngine } from '../../helpers/engines.js';
import { openTestStore, type TestStore } from '../../helpers/store.js';

function item(overrides: Partial<StoredQueueItem> = {}): StoredQueueItem {
  return {
    id: randomUUID(),
    file_path: '/w/a.txt',
    action: 'index',
    status: 'cooling_down',
    enqueued_at: 1_790_000_000.125,
    cooldown_expires_at: 1_790_000_005.125,
    dest_path: null,
    retry_count: 0,
    job_id: 3,
    last_error: null,
    last_event_at: 1_790_000_000.125,
    ...overrides,
  };
}

forEachEngine('createQueueRepository', (engine) => {
  let t: TestStore;
  beforeEach(async () => {
    t = await openTestStore(engine);
  });
  afterEach(() => t.close());

  it('stores a batch in one statement and loads it back exactly, oldest first', async () => {
    const a = item({ enqueued_at: 2, file_path: '/w/b.txt' });
    const b = item({ enqueued_at: 1, action: 'move', dest_path: '/w/c.txt', job_id: null, last_event_at: null, retry_count: 2, last_error: 'busy' });
    await t.store.queue.upsert([a, b]);
    expect(await t.store.queue.loadAll()).to.deep.equal([b, a]);
  });

  it('upserts by id (latest state wins) and removes by id', async () => {
    const a = item();
    const b = item({ file_path: '/w/z.txt' });
    await t.store.queue.upsert([a, b]);
    await t.store.queue.upsert([{ ...a, status: 'processing', retry_count: 1 }]);
    await t.store.queue.remove([b.id, randomUUID()]);
    expect(await t.store.queue.loadAll()).to.deep.equal([{ ...a, status: 'processing', retry_count: 1 }]);
  });

  it('handles a thousand items per call', async () => {
    const many = Array.from({ length: 1000 }, (_, i) => item({ file_path: `/w/${i}.txt`, enqueued_at: i }));
    await t.store.queue.upsert(many);
    const loaded = await t.store.queue.loadAll();
    expect(loaded).to.have.length(1000);
    expect(loaded[999]).to.deep.equal(many[999]);
    await t.store.queue.remove(many.map((m) => m.id));
    expect(await t.store.queue.loadAll()).to.deep.equal([]);
  });

  it('refuses an unknown action or status (a bug upstream, never stored)', async () => {
    let failed = false;
    await t.store.queue.upsert([item({ action: 'explode' as never })]).catch(() => (failed = true));
    expect(failed).to.equal(true);
  });
});
