import { expect } from 'chai';
import { rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AnyBusEvent } from '../../src/events/types.js';
import { defaultFilterConfig } from '../../src/filters/defaults.js';
import { compileFilter } from '../../src/filters/matcher.js';
import { walkFoldersSync } from '../../src/filters/walk.js';
import { forEachEngine } from '../helpers/engines.js';
import { tempTree, type TempTree } from '../helpers/files.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { readKnownUnder } from '../../src/store/repositories/known-under.js';

const REPORT = 'Quarterly revenue of the bakery grew because sourdough bread sold well.\n\nThe ovens ran at full capacity all winter.';

forEachEngine('indexing runs', (engine) => {
  let t: TestService;
  let tree: TempTree;
  let events: AnyBusEvent[];

  before(async () => {
    t = await startTestService(engine);
    t.service.bus.subscribe((e) => events.push(e));
  });
  after(() => t.destroy());
  beforeEach(async () => {
    events = [];
    tree = await tempTree({
      'notes.md': '# Garden plans\n\nPlant tomatoes and basil along the south fence in May.\n',
      'report.txt': REPORT,
      'sub/copy-of-report.txt': REPORT,
      'empty.txt': '',
      'broken.pdf': '%PDF-1.7\nthis is not really a pdf',
      'picture.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]),
      '.env': 'SECRET=1',
    });
  });
  afterEach(async () => {
    // Each test starts from an empty index (identical content elsewhere would otherwise be reused).
    await t.service.store.api.files.removeUnder(tree.root);
    await tree.remove();
  });

  async function runDirectory(force: boolean) {
    const run = t.service.indexing.startDirectory(tree.root, { kind: 'directory', force });
    await t.service.indexing.settled();
    return run.counts;
  }

  it('counts a file whose name is not valid UTF-8 as failed, with the reason, and keeps its folder indexed', async () => {
    await writeFile(Buffer.concat([Buffer.from(tree.path('sub') + path.sep), Buffer.from([0x6e, 0x6f, 0x74, 0xe9, 0x2e, 0x74, 0x78, 0x74])]), 'latin-1 name');
    const counts = await runDirectory(true);
    expect(counts).to.include({ indexed: 5, failed: 2 });
    const failed = events.filter((e) => e.type === 'file_failed').map((e) => e.data as { path: string; code: string; error: string });
    expect(failed.find((f) => f.code === 'invalid_name')).to.deep.include({ path: tree.path('sub/not\uFFFD.txt') });
    expect(await t.service.store.api.files.known([tree.path('sub/copy-of-report.txt')])).to.have.length(1);
  });

  async function fileAt(relative: string) {
    const [known] = await t.service.store.api.files.known([tree.path(relative)]);
    expect(known, relative).to.not.equal(undefined);
    const res = await t.request('GET', `/api/files/${known!.id}`);
    expect(res.status).to.equal(200);
    return res.body;
  }

  it('indexes every readable file, records the unreadable one, and never the excluded secret', async () => {
    const counts = await runDirectory(true);
    expect(counts).to.include({ processed: 6, indexed: 5, failed: 1 });
    const notes = await fileAt('notes.md');
    expect(notes).to.include({ status: 'indexed', title: 'Garden plans', extension: 'md', format: 'markdown' });
    expect(notes.summary).to.match(/tomatoes/);
    expect(notes.keywords).to.include('tomatoes');
    expect(notes.chunk_count).to.be.greaterThan(0);
    expect(notes.embedding_model).to.match(/^static:/);
    const broken = await fileAt('broken.pdf');
    expect(broken).to.include({ status: 'failed', error_code: 'corrupt' });
    expect(broken.error).to.match(/PDF/);
    const picture = await fileAt('picture.png');
    // No text, but indexed by name (its only chunk is the title made from the file name).
    expect(picture).to.include({ status: 'indexed', format: 'image', mime: 'image/png', content_length: 0, title: 'picture' });
    expect(await t.service.store.api.files.known([tree.path('.env')])).to.deep.equal([]);
    const failed = events.filter((e) => e.type === 'file_failed');
    expect(failed.map((e) => (e.data as { path: string }).path)).to.deep.equal([tree.path('broken.pdf')]);
    const completed = events.find((e) => e.type === 'index_run_completed');
    expect(completed?.type === 'index_run_completed' && completed.data.stage_seconds).to.satisfy(
      (stages: Record<string, number>) => ['analyze', 'embed', 'store'].every((stage) => stages[stage]! > 0),
    );
  });

  it('reuses the text and embeddings of identical content at another path', async () => {
    await runDirectory(false);
    const indexedEvents = events.filter((e) => e.type === 'file_indexed').map((e) => e.data as { path: string; reused: boolean });
    const reused = indexedEvents.filter((e) => e.reused).map((e) => e.path);
    expect(reused).to.have.length(1);
    expect([tree.path('report.txt'), tree.path('sub/copy-of-report.txt')]).to.include(reused[0]);
    const a = await fileAt('report.txt');
    const b = await fileAt('sub/copy-of-report.txt');
    expect(b).to.include({ content_hash: a.content_hash, summary: a.summary, chunk_count: a.chunk_count });
  });

  it('skips unchanged files without reading them, and picks up changes, touches and deletions', async () => {
    await runDirectory(false);
    events = [];
    expect(await runDirectory(false)).to.include({ processed: 6, skipped: 6, indexed: 0 });
    expect(events.some((e) => e.type === 'file_parsing')).to.equal(false);

    await writeFile(tree.path('notes.md'), '# Garden plans\n\nPlant potatoes instead.\n');
    const later = new Date(Date.now() + 5000);
    await utimes(tree.path('report.txt'), later, later); // same content, new mtime
    await rm(tree.path('empty.txt'));
    events = [];
    const counts = await runDirectory(false);
    expect(counts).to.include({ indexed: 1, removed: 1 });
    expect(counts.skipped).to.equal(4);
    const skipped = events.filter((e) => e.type === 'file_skipped').map((e) => e.data as { path: string; reason: string });
    expect(skipped.some((s) => s.path === tree.path('report.txt') && s.reason === 'content_unchanged')).to.equal(true);
    expect((await fileAt('notes.md')).summary).to.match(/potatoes/);
    expect(await t.service.store.api.files.known([tree.path('empty.txt')])).to.deep.equal([]);
  });

  it('takes a walk made elsewhere (the watcher thread\'s) as its own, and walks the folder itself when that walk failed', async () => {
    await runDirectory(false);
    await writeFile(tree.path('notes.md'), '# Garden plans\n\nPlant potatoes instead.\n');
    await rm(tree.path('empty.txt'));
    // The tree as the watcher's walk hands it over, with an unreadable folder: its files stay indexed.
    const walked = { paths: [] as string[], sizes: [] as number[], mtimes: [] as number[], errors: [{ path: tree.path('sub'), code: 'EACCES', message: 'denied' }] };
    const walk = walkFoldersSync(tree.root, { matcher: compileFilter(defaultFilterConfig()) });
    for (let step = walk.next(); !step.done; step = walk.next()) {
      for (const f of step.value) {
        if (f.path.startsWith(tree.path('sub'))) continue;
        walked.paths.push(f.path);
        walked.sizes.push(f.size);
        walked.mtimes.push(f.mtimeMs);
      }
    }
    events = [];
    const run = t.service.indexing.startDirectory(tree.root, { kind: 'reconcile', force: false, walked: Promise.resolve(walked) });
    await t.service.indexing.settled();
    expect(run.counts).to.include({ indexed: 1, removed: 1, skipped: 3 });
    expect((await fileAt('notes.md')).summary).to.match(/potatoes/);
    expect(await t.service.store.api.files.known([tree.path('sub/copy-of-report.txt')])).to.have.length(1);

    await writeFile(tree.path('notes.md'), '# Garden plans\n\nPlant leeks.\n');
    const fallback = t.service.indexing.startDirectory(tree.root, { kind: 'reconcile', force: false, walked: Promise.reject(new Error('watcher gone')) });
    await t.service.indexing.settled();
    expect(fallback.counts).to.include({ indexed: 1, skipped: 4, removed: 0 });
    expect((await fileAt('notes.md')).summary).to.match(/leeks/);
  });

  it('re-processes everything when forced', async () => {
    await runDirectory(false);
    expect(await runDirectory(true)).to.include({ processed: 6, indexed: 5, failed: 1, skipped: 0 });
  });

  it('adds up in /api/files/stats', async () => {
    await runDirectory(true);
    const stats = (await t.request('GET', '/api/files/stats')).body;
    const known = await readKnownUnder(t.service.store.api.files, '/');
    const indexed = known.filter((k) => k.status === 'indexed');
    expect(stats.total_files).to.equal(indexed.length);
    expect(stats.failed_files).to.equal(known.length - indexed.length);
    expect(stats.total_size).to.equal(indexed.reduce((s, k) => s + k.size, 0));
    expect(Object.values(stats.extensions as Record<string, number>).reduce((a, b) => a + b, 0)).to.equal(indexed.length);
    expect(stats.extensions).to.include.keys('md', 'txt', 'png');
    expect(stats.last_indexed).to.be.a('string');
  });

  it('counts the files ahead of the walk: the total is final and real long before the last file', async () => {
    for (let i = 0; i < 200; i++) await tree.write(`many/${String(i % 10)}/note-${i}.txt`, `Note ${i} about sourdough and rye.`);
    const run = t.service.indexing.startDirectory(tree.root, { kind: 'directory', force: true });
    await t.service.indexing.finished(run);
    const progress = events.flatMap((e) => (e.type === 'index_run_progress' && e.data.run_id === run.id ? [e.data] : []));
    const firstFinal = progress.find((p) => p.total_final);
    expect(firstFinal, 'a progress event with a final total').to.not.equal(undefined);
    expect(firstFinal!.total).to.equal(206); // 200 notes and the six files the filters let through
    expect(firstFinal!.processed).to.be.lessThan(206);
    const completed = events.find((e) => e.type === 'index_run_completed' && e.data.run_id === run.id);
    expect(completed?.data).to.include({ total: 206, processed: 206 });
  });
});
