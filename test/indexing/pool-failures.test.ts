import { expect } from 'chai';
import { utimes } from 'node:fs/promises';
import path from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { tempTree, type TempTree } from '../helpers/files.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { readKnownUnder } from '../../src/store/repositories/known-under.js';

describe('a misbehaving pipeline worker', () => {
  let t: TestService;
  let tree: TempTree;
  before(async () => {
    t = await startTestService('pglite', {}, undefined, {
      pipelineWorker: path.join(repoRoot, 'dist', 'test', 'fixtures', 'misbehaving.worker.js'),
    });
    // Long enough for the ordinary file on a cold thread of a loaded machine, short enough for the hanging one.
    await t.request('PUT', '/api/settings/', { 'indexing.file_timeout_seconds': 20 });
    tree = await tempTree({
      'hang.txt': 'this file never finishes',
      'crash.txt': 'this file kills its worker thread',
      'throw.txt': 'this file makes the task throw',
      'fine.txt': 'an ordinary file about lighthouses and their keepers',
    });
  });
  after(async () => {
    await tree.remove();
    await t.destroy();
  });

  it('records each broken file as failed with its reason, indexes the rest, and keeps answering', async () => {
    const run = t.service.indexing.startDirectory(tree.root, { kind: 'directory', force: true });
    expect((await t.request('GET', '/api/status/')).status).to.equal(200);
    await t.service.indexing.settled();
    expect(run.counts).to.include({ processed: 4, indexed: 1, failed: 3 });
    const known = await readKnownUnder(t.service.store.api.files, tree.root);
    const byName = Object.fromEntries(await Promise.all(known.map(async (k) => [path.basename(k.path), await t.service.store.api.files.get(k.id)])));
    expect(byName['hang.txt']).to.include({ status: 'failed', error_code: 'timeout' });
    expect(byName['crash.txt']).to.include({ status: 'failed', error_code: 'worker_crashed' });
    expect(byName['throw.txt']).to.include({ status: 'failed', error_code: 'task_error' });
    expect(byName['throw.txt']!.error).to.match(/deliberate failure/);
    expect(byName['fine.txt']).to.include({ status: 'indexed' });
    const status = await t.request('GET', '/api/status/');
    expect(status.body).to.have.nested.property('worker_pool.ok', true);
    const pool = status.body.worker_pool as { thread_limit: number; max_threads: number };
    expect(pool.thread_limit).to.be.within(1, pool.max_threads);
    // The pool still works after losing threads.
    const again = t.service.indexing.startFile(tree.path('fine.txt'), { force: true });
    await t.service.indexing.settled();
    expect(again.counts.indexed).to.equal(1);
  });

  it('records a file whose store write failed unexpectedly with its size and time, and does not read it again while it is unchanged', async () => {
    const other = await tempTree({ 'unstorable.txt': 'a note whose metadata the database refuses' });
    try {
      const first = t.service.indexing.startDirectory(other.root, { kind: 'directory', force: false });
      await t.service.indexing.settled();
      expect(first.counts).to.include({ processed: 1, failed: 1 });
      const [known] = await readKnownUnder(t.service.store.api.files, other.root);
      expect(await t.service.store.api.files.get(known!.id)).to.include({ status: 'failed', error_code: 'internal', size: 42 });

      const again = t.service.indexing.startDirectory(other.root, { kind: 'directory', force: false });
      await t.service.indexing.settled();
      expect(again.counts).to.include({ processed: 1, skipped: 1, failed: 0 });

      // Changed (a new mtime): read again.
      const later = new Date(Date.now() + 5000);
      await utimes(other.path('unstorable.txt'), later, later);
      const changed = t.service.indexing.startDirectory(other.root, { kind: 'directory', force: false });
      await t.service.indexing.settled();
      expect(changed.counts).to.include({ processed: 1, skipped: 0, failed: 1 });
    } finally {
      await other.remove();
    }
  });
});

describe('a file too big for a pipeline thread\'s heap', () => {
  let t: TestService;
  let tree: TempTree;
  before(async () => {
    // A small heap (the real worker, the real limit mechanism): the threads load and index ordinary files in it.
    t = await startTestService('pglite', {}, undefined, { pipelineHeapLimits: { maxOldGenerationSizeMb: 96, maxYoungGenerationSizeMb: 8 } });
    await t.request('PUT', '/api/settings/', { 'indexing.max_text_chars': 50_000_000, 'indexing.file_timeout_seconds': 600 });
    // ~48 MB of varied prose, kept whole: the decoded text and its normalised copy alone are 96 MB of heap. (24 MB
    // was enough while normalising copied the whole text eight times; in pieces, Node 24 indexed it in 96 MB.)
    const words = Array.from({ length: 4000 }, (_, i) => `keeper${i} lighthouse${i % 97} harbour${i % 13}`).join(' ');
    tree = await tempTree({ 'huge.txt': `${words}\n`.repeat(Math.ceil(48e6 / words.length)), 'fine.txt': 'an ordinary note about lighthouses and their keepers' });
  });
  after(async () => {
    await tree.remove();
    await t.destroy();
  });

  it('fails that file as out_of_memory with the limit in its reason, and indexes the others', async () => {
    const run = t.service.indexing.startDirectory(tree.root, { kind: 'directory', force: true });
    await t.service.indexing.settled();
    expect(run.counts).to.include({ processed: 2, indexed: 1, failed: 1 });
    const known = await readKnownUnder(t.service.store.api.files, tree.root);
    const byName = Object.fromEntries(await Promise.all(known.map(async (k) => [path.basename(k.path), await t.service.store.api.files.get(k.id)])));
    expect(byName['huge.txt']).to.include({ status: 'failed', error_code: 'out_of_memory' });
    expect(byName['huge.txt']!.error).to.match(/more than the 96 MB a pipeline thread may use/);
    expect(byName['fine.txt']).to.include({ status: 'indexed' });
    // The pool replaced the thread and goes on.
    const again = t.service.indexing.startFile(tree.path('fine.txt'), { force: true });
    await t.service.indexing.settled();
    expect(again.counts.indexed).to.equal(1);
    expect((await t.request('GET', '/api/status/')).body).to.have.nested.property('worker_pool.ok', true);
  });
});
