import { expect } from 'chai';
import type { IndexedFileWrite } from '../../../src/store/repositories/files.types.js';
import { forEachEngine } from '../../helpers/engines.js';
import { indexedFileWrite, openTestStore, type TestStore } from '../../helpers/store.js';
import { readKnownUnder } from '../../../src/store/repositories/known-under.js';

function fileAt(path: string, jobId: number | null): IndexedFileWrite {
  return indexedFileWrite(path, [new Float32Array([1, 0, 0])], { facts: { size: 3 }, mtimeMs: 0, jobId, contentHash: `h-${path}`, text: 'abc', embeddingModel: 'm' });
}

forEachEngine('createJobsRepository', (engine) => {
  let t: TestStore;
  beforeEach(async () => {
    t = await openTestStore(engine);
  });
  afterEach(() => t.close());

  it('creates a job with the spec fields and counts it as active', async () => {
    const created = await t.store.jobs.create({ path: '/data/docs', recursive: false, filePattern: '*.md' });
    expect(created.ok).to.equal(true);
    if (!created.ok) return;
    expect(created.absorbed).to.deep.equal([]);
    expect(created.job).to.include({ path: '/data/docs', is_active: true, recursive: false, file_pattern: '*.md', last_scan: null });
    expect(created.job.id).to.be.a('number');
    expect(created.job.created_at).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
    expect(await t.store.jobs.countActive()).to.equal(1);
    expect(await t.store.jobs.get(created.job.id)).to.deep.equal(created.job);
    expect(await t.store.jobs.get(created.job.id + 100)).to.equal(null);
  });

  it('refuses the same directory or one below a watched one, but not a sibling with a common prefix', async () => {
    const first = await t.store.jobs.create({ path: '/data/docs', recursive: true, filePattern: null });
    if (!first.ok) throw new Error('first create failed');
    for (const path of ['/data/docs', '/data/docs/sub', '/data/docs/sub/deeper']) {
      const again = await t.store.jobs.create({ path, recursive: true, filePattern: null });
      expect(again, path).to.deep.equal({ ok: false, existing: first.job });
    }
    const sibling = await t.store.jobs.create({ path: '/data/docs2', recursive: true, filePattern: null });
    expect(sibling.ok).to.equal(true);
  });

  it('absorbs jobs below a new parent: their files (and unowned ones under it) move to the new job', async () => {
    const a = await t.store.jobs.create({ path: '/data/x/a', recursive: true, filePattern: null });
    const b = await t.store.jobs.create({ path: '/data/x/b', recursive: true, filePattern: null });
    const other = await t.store.jobs.create({ path: '/data/y', recursive: true, filePattern: null });
    if (!a.ok || !b.ok || !other.ok) throw new Error('setup failed');
    await t.store.files.saveIndexed(fileAt('/data/x/a/1.txt', a.job.id));
    await t.store.files.saveIndexed(fileAt('/data/x/b/2.txt', b.job.id));
    await t.store.files.saveIndexed(fileAt('/data/x/loose.txt', null));
    await t.store.files.saveIndexed(fileAt('/data/y/3.txt', other.job.id));
    const parent = await t.store.jobs.create({ path: '/data/x', recursive: true, filePattern: null });
    if (!parent.ok) throw new Error('parent refused');
    expect(parent.absorbed.map((j) => j.id)).to.deep.equal([a.job.id, b.job.id]);
    expect((await t.store.jobs.list()).map((j) => j.path)).to.deep.equal(['/data/y', '/data/x']);
    const known = await readKnownUnder(t.store.files, '/data');
    const owner = Object.fromEntries(known.map((k) => [k.path, k.jobId]));
    expect(owner).to.deep.equal({
      '/data/x/a/1.txt': parent.job.id,
      '/data/x/b/2.txt': parent.job.id,
      '/data/x/loose.txt': parent.job.id,
      '/data/y/3.txt': other.job.id,
    });
  });

  it('removes a job with every indexed file under its directory, chunks included', async () => {
    const a = await t.store.jobs.create({ path: '/data/x', recursive: true, filePattern: null });
    if (!a.ok) throw new Error('setup failed');
    await t.store.files.saveIndexed(fileAt('/data/x/1.txt', a.job.id));
    await t.store.files.saveIndexed(fileAt('/data/x/sub/2.txt', a.job.id));
    await t.store.files.saveIndexed(fileAt('/data/xy/3.txt', null));
    const removed = await t.store.jobs.remove(a.job.id);
    expect(removed).to.deep.equal({ job: a.job, filesRemoved: 2 });
    expect((await readKnownUnder(t.store.files, '/data')).map((k) => k.path)).to.deep.equal(['/data/xy/3.txt']);
    const { rows } = await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks');
    expect(rows[0]!.n).to.equal(1);
    expect(await t.store.jobs.remove(a.job.id)).to.equal(null);
    expect(await t.store.jobs.countActive()).to.equal(0);
  });

  it('records the last scan', async () => {
    const a = await t.store.jobs.create({ path: '/data/x', recursive: true, filePattern: null });
    if (!a.ok) throw new Error('setup failed');
    const updated = await t.store.jobs.setLastScan(a.job.id, new Date('2026-11-22T14:00:00.123Z'));
    expect(updated?.last_scan).to.equal('2026-11-22T14:00:00.123');
  });
});
