import { expect } from 'chai';
import { rm, symlink, unlink, writeFile } from 'node:fs/promises';
import type { WatchJob } from '../../src/store/repositories/jobs.repository.js';
import { fileRecord, indexed, queueIdle, startWatchService, type WatchHarness } from '../actors/watcher/helpers.js';
import { forEachEngine } from '../helpers/engines.js';
import { tempTree, type TempTree } from '../helpers/files.js';

/**
 * One rule for links, over real HTTP with real links in temp trees: a folder may be named through links (it is
 * resolved), nothing below it is followed; the data directory and the system's pseudo-filesystems are refused.
 */
forEachEngine('paths named over HTTP: links, the data directory, system folders', (engine) => {
  let h: WatchHarness;
  let tree: TempTree;
  let outside: TempTree;
  before(async () => {
    h = await startWatchService(engine);
  });
  after(() => h.t.destroy());
  beforeEach(async () => {
    tree = await tempTree({ 'notes.md': 'Plant tomatoes and basil along the south fence.' });
    outside = await tempTree({ 'shadow': 'root:zebracorn-hash-7781:19000:0:99999:7:::', 'dir/secret.txt': 'zebracorn lives here' });
  });
  afterEach(async () => {
    for (const job of (await h.t.request('GET', '/api/watch/jobs')).body.jobs as WatchJob[]) await h.t.request('DELETE', `/api/watch/jobs/${job.id}`);
    await tree.remove();
    await outside.remove();
  });

  const search = async (query: string) => (await h.t.request('POST', '/api/search/', { query, mode: 'keyword' })).body.results as unknown[];

  it('never indexes what a link inside a watched folder points to, created before or after the watch starts', async () => {
    await symlink(outside.path('shadow'), tree.path('before.txt'));
    await symlink(outside.path('dir'), tree.path('before-dir'));
    const res = await h.t.request('POST', '/api/watch/', { directory_path: tree.root });
    expect(res.status).to.equal(201);
    await indexed(h.t, tree.path('notes.md'));
    // Live events: links made while the folder is watched, then a file that must be seen (the queue is not stuck).
    await symlink(outside.path('shadow'), tree.path('x.txt'));
    await symlink(outside.path('dir'), tree.path('live-dir'));
    await writeFile(tree.path('after.md'), 'Cabbage rows by the north wall.');
    await indexed(h.t, tree.path('after.md'));
    await queueIdle(h.t);
    for (const p of ['before.txt', 'x.txt', 'before-dir/secret.txt', 'live-dir/secret.txt']) expect(await fileRecord(h.t, tree.path(p)), p).to.equal(null);
    expect(await search('zebracorn')).to.deep.equal([]);
  });

  it('drops a file that is replaced by a link', async () => {
    await h.t.request('POST', '/api/watch/', { directory_path: tree.root });
    await indexed(h.t, tree.path('notes.md'));
    await unlink(tree.path('notes.md'));
    await symlink(outside.path('shadow'), tree.path('notes.md'));
    await queueIdle(h.t);
    const { eventually } = await import('../helpers/assert.js');
    await eventually(async () => (await fileRecord(h.t, tree.path('notes.md'))) === null);
    expect(await search('zebracorn')).to.deep.equal([]);
  });

  it('POST /api/index/file refuses a link, and resolves a file named through a linked folder', async () => {
    await symlink(outside.path('shadow'), tree.path('shadow.txt'));
    const link = await h.t.request('POST', '/api/index/file', { file_path: tree.path('shadow.txt') });
    expect(link.status).to.equal(400);
    expect(link.body).to.include({ success: false, code: 'invalid_path', file_id: null });
    expect(link.body.message).to.match(/symbolic link/);
    await symlink(tree.root, outside.path('tree-link'));
    const through = await h.t.request('POST', '/api/index/file', { file_path: outside.path('tree-link', 'notes.md') });
    expect(through.status).to.equal(201);
    expect(through.body.message).to.include(tree.path('notes.md'));
    await h.t.service.indexing.settled();
    expect(await fileRecord(h.t, tree.path('notes.md'))).to.include({ status: 'indexed' });
    expect(await fileRecord(h.t, outside.path('tree-link', 'notes.md'))).to.equal(null);
  });

  it('refuses the data directory through a link, the file-system root and the pseudo-filesystems, with a 400 naming why', async () => {
    await symlink(h.t.dataDir, tree.path('data-link'));
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['/api/watch/', { directory_path: tree.path('data-link') }, /own data directory/],
      ['/api/index/directory', { directory_path: tree.path('data-link') }, /own data directory/],
      ['/api/watch/', { directory_path: '/' }, /root of the file system/],
      ['/api/index/directory', { directory_path: '/' }, /root of the file system/],
      ['/api/watch/', { directory_path: '/proc' }, /pseudo-filesystem/],
      ['/api/watch/', { directory_path: '/proc/self' }, /pseudo-filesystem/],
      ['/api/watch/', { directory_path: '/sys' }, /pseudo-filesystem/],
      ['/api/watch/', { directory_path: '/dev' }, /pseudo-filesystem/],
      ['/api/index/file', { file_path: '/proc/self/environ' }, /pseudo-filesystem|not a regular file/],
    ];
    for (const [route, body, message] of cases) {
      const res = await h.t.request('POST', route, body);
      expect(res.status, `${route} ${JSON.stringify(body)}`).to.equal(400);
      expect(res.body).to.include({ success: false, code: 'invalid_path' });
      expect(res.body.message, JSON.stringify(body)).to.match(message);
    }
    expect((await h.t.request('GET', '/api/watch/jobs')).body.jobs).to.deep.equal([]);
    await rm(tree.path('data-link'));
  });
});
