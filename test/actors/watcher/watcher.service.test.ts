import { expect } from 'chai';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { WatchJob } from '../../../src/store/repositories/jobs.repository.js';
import { eventually } from '../../helpers/assert.js';
import { forEachEngine } from '../../helpers/engines.js';
import { tempTree, type TempTree } from '../../helpers/files.js';
import { fileRecord, gone, indexed, queueHistory, queueIdle, startWatchService, type WatchHarness } from './helpers.js';
import { readKnownUnder } from '../../../src/store/repositories/known-under.js';

forEachEngine('watch jobs: POST /api/watch/, GET /api/watch/jobs, DELETE /api/watch/jobs/{id}', (engine) => {
  let h: WatchHarness;
  let tree: TempTree;

  before(async () => {
    h = await startWatchService(engine);
  });
  after(() => h.t.destroy());
  beforeEach(async () => {
    h.events.length = 0;
    tree = await tempTree({
      'notes.md': '# Garden plans\n\nPlant tomatoes and basil along the south fence in May.\n',
      'docs/report.txt': 'Quarterly revenue of the bakery grew because sourdough bread sold well.',
      'docs/deep/minutes.txt': 'The committee approved the new bicycle lanes on Elm Street.',
      'node_modules/pkg/readme.md': 'a dependency readme',
    });
  });
  afterEach(async () => {
    for (const job of (await h.t.request('GET', '/api/watch/jobs')).body.jobs as WatchJob[]) {
      await h.t.request('DELETE', `/api/watch/jobs/${job.id}`);
    }
    await tree.remove();
  });

  async function watch(body: Record<string, unknown>) {
    const res = await h.t.request('POST', '/api/watch/', body);
    return res;
  }

  it('answers 201 at once, then watches and scans the directory through the pipeline', async () => {
    const res = await watch({ directory_path: tree.root });
    expect(res.status).to.equal(201);
    expect(res.body).to.include({ success: true, files_indexed: 0 });
    expect(res.body.message).to.include(tree.root);
    const jobId = res.body.job_id as number;
    await indexed(h.t, tree.path('docs/deep/minutes.txt'));
    await indexed(h.t, tree.path('notes.md'));
    expect(await fileRecord(h.t, tree.path('node_modules/pkg/readme.md'))).to.equal(null);
    const jobs = (await eventually(async () => {
      const list = (await h.t.request('GET', '/api/watch/jobs')).body.jobs as WatchJob[];
      return list[0]?.last_scan ? list : null;
    }))!;
    expect(jobs).to.have.length(1);
    expect(jobs[0]).to.have.all.keys('id', 'path', 'is_active', 'recursive', 'file_pattern', 'last_scan', 'created_at', 'updated_at');
    expect(jobs[0]).to.include({ id: jobId, path: tree.root, is_active: true, recursive: true, file_pattern: null });
    expect(jobs[0]!.last_scan).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
    const record = await fileRecord(h.t, tree.path('notes.md'));
    expect(record).to.include({ job_id: jobId, job_path: tree.root });
    const status = (await h.t.request('GET', '/api/status/')).body;
    expect(status.jobs).to.equal(1);
    expect(status.watcher).to.deep.include({ ok: true, native: 1, polling: 0 });
    const added = h.events.find((e) => e.type === 'watch_added');
    expect(added?.data).to.deep.include({ absorbed_job_ids: [] });
    const run = h.events.find((e) => e.type === 'index_run_started');
    expect(run?.data).to.include({ kind: 'watch', path: tree.root, force: false });
  });

  it('refuses the same directory or one inside a watched one with the spec body (400, files_indexed 0)', async () => {
    expect((await watch({ directory_path: tree.root })).status).to.equal(201);
    for (const dir of [tree.root, tree.path('docs'), `${tree.root}/`]) {
      const res = await watch({ directory_path: dir });
      expect(res.status, dir).to.equal(400);
      expect(res.body).to.include({ success: false, files_indexed: 0, code: 'already_watched' });
      expect(res.body.message).to.include(path.resolve(dir));
      expect(res.body.message).to.match(/already watched/);
    }
    expect(((await h.t.request('GET', '/api/watch/jobs')).body.jobs as unknown[]).length).to.equal(1);
  });

  it('refuses a relative, missing or non-directory path, the data directory, a bad pattern and bad fields, with files_indexed 0', async () => {
    const cases: [unknown, RegExp][] = [
      [{ directory_path: 'relative/dir' }, /absolute/],
      [{ directory_path: tree.path('nope') }, /does not exist/],
      [{ directory_path: tree.path('notes.md') }, /not a directory/],
      [{ directory_path: h.t.dataDir }, /data directory/],
      [{ directory_path: tree.root, file_pattern: '[' }, /file_pattern/],
      [{ directory_path: tree.root, recursive: 'yes' }, /recursive/],
      [{ directory_path: tree.root, surprise: 1 }, /surprise/],
      [{}, /directory_path/],
    ];
    for (const [body, message] of cases) {
      const res = await watch(body as Record<string, unknown>);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body, JSON.stringify(body)).to.include({ success: false, files_indexed: 0 });
      expect(res.body.message, JSON.stringify(body)).to.match(message);
    }
    expect((await h.t.request('GET', '/api/watch/jobs')).body.jobs).to.deep.equal([]);
  });

  it('watching a parent absorbs the jobs below it: their files stay indexed and belong to the new job', async () => {
    const child = await watch({ directory_path: tree.path('docs') });
    const childId = child.body.job_id as number;
    await indexed(h.t, tree.path('docs/report.txt'));
    const before = await fileRecord(h.t, tree.path('docs/report.txt'));
    const parent = await watch({ directory_path: tree.root });
    expect(parent.status).to.equal(201);
    expect(parent.body.message).to.match(new RegExp(`absorbs job ${childId} \\(${tree.path('docs').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)`));
    expect(parent.body.absorbed_job_ids).to.deep.equal([childId]);
    const jobs = (await h.t.request('GET', '/api/watch/jobs')).body.jobs as WatchJob[];
    expect(jobs.map((j) => j.path)).to.deep.equal([tree.root]);
    const after = await fileRecord(h.t, tree.path('docs/report.txt'));
    expect(after).to.include({ id: before!.id, job_id: parent.body.job_id, content_hash: before!.content_hash });
    await indexed(h.t, tree.path('notes.md'));
    // The absorbed folder is still watched, by the new job.
    await h.t.service.watcher.settled(parent.body.job_id as number);
    await writeFile(tree.path('docs/added-later.txt'), 'Lighthouse keepers logged every passing ship.');
    const added = await indexed(h.t, tree.path('docs/added-later.txt'));
    expect(added.job_id).to.equal(parent.body.job_id);
  });

  it('DELETE stops the watcher, deletes the directory\'s files from the index and the record; 404 and 400 otherwise', async () => {
    const res = await watch({ directory_path: tree.root });
    const jobId = res.body.job_id as number;
    await indexed(h.t, tree.path('notes.md'));
    await h.t.service.watcher.settled(jobId);
    const del = await h.t.request('DELETE', `/api/watch/jobs/${jobId}`);
    expect(del.status).to.equal(200);
    expect(del.body).to.include({ success: true, job_id: jobId });
    expect(del.body.files_removed).to.equal(3);
    expect(await readKnownUnder(h.t.service.store.api.files, tree.root)).to.deep.equal([]);
    expect((await h.t.request('GET', '/api/watch/jobs')).body.jobs).to.deep.equal([]);
    expect(h.events.find((e) => e.type === 'watch_removed')?.data).to.include({ job_id: jobId, path: tree.root, files_removed: 3 });
    // The watcher is gone: a new file is not indexed.
    await writeFile(tree.path('after.txt'), 'written after the job was deleted');
    await new Promise((r) => setTimeout(r, 800));
    await h.t.service.watcher.drain();
    expect(h.t.service.queue.items().filter((i) => i.file_path.startsWith(tree.root))).to.deep.equal([]);
    expect(await fileRecord(h.t, tree.path('after.txt'))).to.equal(null);

    const again = await h.t.request('DELETE', `/api/watch/jobs/${jobId}`);
    expect(again.status).to.equal(404);
    expect(again.body).to.include({ success: false, job_id: jobId });
    expect(again.body.message).to.include(String(jobId));
    const bad = await h.t.request('DELETE', '/api/watch/jobs/abc');
    expect(bad.status).to.equal(400);
    expect(bad.body).to.include({ success: false });
  });

  it('DELETE in the middle of the initial scan leaves nothing of the directory behind', async () => {
    for (let i = 0; i < 60; i++) await tree.write(`bulk/f${i}.txt`, `Bulk note number ${i} about harbour seals and tides.`);
    const res = await watch({ directory_path: tree.root });
    const jobId = res.body.job_id as number;
    await eventually(() => h.events.some((e) => e.type === 'file_indexed'), 30_000, 10);
    const del = await h.t.request('DELETE', `/api/watch/jobs/${jobId}`);
    expect(del.status).to.equal(200);
    await h.t.service.indexing.settled();
    await queueIdle(h.t);
    expect(await readKnownUnder(h.t.service.store.api.files, tree.root)).to.deep.equal([]);
    const completed = h.events.find((e) => e.type === 'index_run_completed' && (e.data as { path: string }).path === tree.root);
    expect(completed?.data).to.include({ kind: 'watch' });
  });

  it('routes later changes through the queue: create, modify, delete, rename (a move, not re-embedded), delete a folder', async () => {
    const res = await watch({ directory_path: tree.root });
    const jobId = res.body.job_id as number;
    await h.t.service.watcher.settled(jobId);
    await queueIdle(h.t);
    h.events.length = 0;

    // create
    const created = tree.path('docs/new.txt');
    await writeFile(created, 'Migrating cranes rested on the frozen lake near the village.');
    const record = await indexed(h.t, created, /cranes/);
    expect(record.job_id).to.equal(jobId);
    expect(queueHistory(h.events, created)).to.deep.equal(['added:index:cooling_down', 'updated:index:ready', 'processing:index:processing', 'completed:index:processing']);
    expect(h.events.some((e) => e.type === 'file_created' && (e.data as { path: string }).path === created)).to.equal(true);

    // modify
    await writeFile(created, 'Migrating storks rested on the frozen lake near the village.');
    await indexed(h.t, created, /storks/);
    expect(h.events.some((e) => e.type === 'file_modified' && (e.data as { path: string }).path === created)).to.equal(true);

    // rename: the record moves (same id), nothing is embedded again
    await queueIdle(h.t);
    const before = await fileRecord(h.t, created);
    h.events.length = 0;
    const renamed = tree.path('docs/renamed.txt');
    await rename(created, renamed);
    const moved = await indexed(h.t, renamed);
    await gone(h.t, created);
    expect(moved).to.include({ id: before!.id, content_hash: before!.content_hash, summary: before!.summary });
    expect(h.events.some((e) => e.type === 'file_moved' && (e.data as { dest_path: string }).dest_path === renamed)).to.equal(true);
    expect(queueHistory(h.events, renamed)[0]).to.equal('added:move:cooling_down');
    const about = (p: string) => h.events.filter((e) => (e.data as { path?: string }).path === p).map((e) => e.type);
    expect(about(renamed), JSON.stringify(about(renamed))).to.not.include.members(['file_parsing', 'file_embedded']);
    expect(h.events.find((e) => e.type === 'file_indexed' && (e.data as { path: string }).path === renamed)?.data).to.include({ reused: true, chunks: null });

    // delete a file
    await rm(tree.path('notes.md'));
    await gone(h.t, tree.path('notes.md'));
    expect(h.events.some((e) => e.type === 'file_deleted')).to.equal(true);

    // delete a whole folder: everything under it leaves the index
    await queueIdle(h.t);
    await rm(tree.path('docs'), { recursive: true });
    await gone(h.t, tree.path('docs/deep/minutes.txt'));
    await gone(h.t, tree.path('docs/report.txt'));
    await gone(h.t, renamed);
    expect(h.events.some((e) => e.type === 'folder_deleted' && (e.data as { path: string }).path === tree.path('docs'))).to.equal(true);
    await queueIdle(h.t);
    expect(await readKnownUnder(h.t.service.store.api.files, tree.root)).to.deep.equal([]);
  });

  it('counts a file created later with a name that is not valid UTF-8 as failed (invalid_name), with the reason', async () => {
    const res = await watch({ directory_path: tree.root });
    await h.t.service.watcher.settled(res.body.job_id as number);
    await queueIdle(h.t);
    h.events.length = 0;
    await writeFile(Buffer.concat([Buffer.from(tree.path('docs') + path.sep), Buffer.from([0x6e, 0x6f, 0x74, 0xe9, 0x2e, 0x74, 0x78, 0x74])]), 'latin-1 name');
    const failed = await eventually(() => h.events.find((e) => e.type === 'file_failed'));
    expect(failed!.data).to.include({ path: tree.path('docs/not\uFFFD.txt'), code: 'invalid_name', file_id: null });
    expect((failed!.data as { error: string }).error).to.match(/not valid UTF-8/);
    const completed = await eventually(() => h.events.find((e) => e.type === 'index_run_completed'));
    expect(completed!.data).to.include({ failed: 1 });
  });

  it("respects the job's file_pattern and recursive flag", async () => {
    const res = await watch({ directory_path: tree.root, recursive: false, file_pattern: '*.md' });
    expect(res.status).to.equal(201);
    const jobId = res.body.job_id as number;
    await h.t.service.watcher.settled(jobId);
    expect((await readKnownUnder(h.t.service.store.api.files, tree.root)).map((k) => k.path)).to.deep.equal([tree.path('notes.md')]);
    await writeFile(tree.path('todo.md'), '# Todo\n\nRepaint the shed before the autumn rains.');
    await writeFile(tree.path('todo.txt'), 'not matching the pattern');
    await mkdir(tree.path('sub'));
    await writeFile(tree.path('sub/inner.md'), '# Inner\n\nNot watched: the job is not recursive.');
    await indexed(h.t, tree.path('todo.md'));
    await queueIdle(h.t);
    expect((await readKnownUnder(h.t.service.store.api.files, tree.root)).map((k) => k.path).sort()).to.deep.equal([tree.path('notes.md'), tree.path('todo.md')]);
    const job = ((await h.t.request('GET', '/api/watch/jobs')).body.jobs as WatchJob[])[0];
    expect(job).to.include({ recursive: false, file_pattern: '*.md' });
  });
});
