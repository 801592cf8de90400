import { expect } from 'chai';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { WatcherEvent } from '../../../src/actors/watcher/protocol.js';
import { DEFAULT_WATCHER_TUNING } from '../../../src/actors/watcher/protocol.js';
import { ListingWatcher, plainUnder, WatcherCore, watchesFolder } from '../../../src/actors/watcher/watcher-core.js';
import { compileFilePattern, compileFilter } from '../../../src/filters/matcher.js';
import { walkFiles, type WalkedFile, type WalkError } from '../../../src/filters/walk.js';
import chokidar from 'chokidar';
import { NodeFsHandler } from 'chokidar/handler.js';
import { defaultFilterConfig } from '../../../src/filters/defaults.js';
import type { FilterConfig } from '../../../src/filters/schema.js';
import { eventually } from '../../helpers/assert.js';
import { tempTree, type TempTree } from '../../helpers/files.js';

const tuning = { ...DEFAULT_WATCHER_TUNING, batchIntervalMs: 20, moveQuietMs: 150, pollIntervalMs: 100 };

describe('WatcherCore (real chokidar, real folders)', function () {
  this.timeout(90_000);
  let tree: TempTree;
  let core: WatcherCore;
  let events: WatcherEvent[];
  let batches: number;

  function start(options: { filters?: FilterConfig; simulateNativeError?: string; ownDataDir?: string } = {}): WatcherCore {
    events = [];
    batches = 0;
    core = new WatcherCore({
      emit: (batch) => {
        batches++;
        events.push(...batch);
      },
      ownDataDir: options.ownDataDir ?? path.join(tree.root, '..', 'not-there-data-dir'),
      filters: options.filters ?? defaultFilterConfig(),
      tuning: { ...tuning, simulateNativeError: options.simulateNativeError ?? null },
    });
    return core;
  }

  const ofType = (type: WatcherEvent['type']) => events.filter((e) => e.type === type);
  const pathOf = (e: WatcherEvent) => ('path' in e ? e.path : null);
  const has = (predicate: (e: WatcherEvent) => boolean) => eventually(() => events.some(predicate), 10_000);

  beforeEach(async () => {
    tree = await tempTree({
      'a.txt': 'alpha',
      'docs/b.md': '# bravo',
      'docs/deep/c.txt': 'charlie',
      'node_modules/pkg/readme.md': 'dependency',
      'keys/id_rsa': 'secret',
    });
  });
  afterEach(async () => {
    await core?.close();
    await tree.remove();
  });

  it('reports nothing for files already there, then add, change and unlink', async () => {
    const state = await start().watch({ jobId: 1, root: tree.root, recursive: true, filePattern: null });
    expect(state).to.include({ jobId: 1, mode: 'native', ready: true, reason: null });
    await new Promise((r) => setTimeout(r, 300));
    expect(events).to.deep.equal([]);

    await tree.write('docs/new.txt', 'new file');
    await has((e) => e.type === 'add' && e.path === tree.path('docs/new.txt'));
    await writeFile(tree.path('a.txt'), 'alpha changed');
    await has((e) => e.type === 'change' && e.path === tree.path('a.txt'));
    await rm(tree.path('docs/b.md'));
    await has((e) => e.type === 'unlink' && e.path === tree.path('docs/b.md'));
    expect(events.every((e) => e.jobId === 1)).to.equal(true);
  });

  it('reports a rename and a move into another folder as moves, content untouched', async () => {
    await start().watch({ jobId: 1, root: tree.root, recursive: true, filePattern: null });
    await rename(tree.path('a.txt'), tree.path('renamed.txt'));
    await rename(tree.path('docs/deep/c.txt'), tree.path('docs/c-moved.txt'));
    await has((e) => e.type === 'move' && e.path === tree.path('a.txt') && e.dest === tree.path('renamed.txt'));
    await has((e) => e.type === 'move' && e.path === tree.path('docs/deep/c.txt') && e.dest === tree.path('docs/c-moved.txt'));
    await new Promise((r) => setTimeout(r, 400));
    expect(ofType('unlink')).to.deep.equal([]);
    expect(ofType('add')).to.deep.equal([]);
  });

  it('reports a renamed folder as one move per file (and the old folder leaving)', async () => {
    for (let i = 0; i < 20; i++) await tree.write(`docs/many/f${i}.txt`, `file ${i}`);
    await start().watch({ jobId: 1, root: tree.root, recursive: true, filePattern: null });
    await rename(tree.path('docs'), tree.path('papers'));
    await has((e) => e.type === 'unlinkDir' && e.path === tree.path('docs'));
    const moves = ofType('move') as Extract<WatcherEvent, { type: 'move' }>[];
    expect(moves.map((m) => path.relative(tree.root, m.dest)).sort()).to.deep.equal(
      ['papers/b.md', 'papers/deep/c.txt', ...Array.from({ length: 20 }, (_, i) => `papers/many/f${i}.txt`)].sort(),
    );
    expect(moves.every((m) => m.dest === m.path.replace(`${path.sep}docs${path.sep}`, `${path.sep}papers${path.sep}`))).to.equal(true);
    expect(ofType('unlink')).to.deep.equal([]);
  });

  it('reports a deleted folder: its files and the folder itself', async () => {
    await start().watch({ jobId: 1, root: tree.root, recursive: true, filePattern: null });
    await rm(tree.path('docs'), { recursive: true });
    await has((e) => e.type === 'unlinkDir' && e.path === tree.path('docs'));
    await eventually(() => ofType('unlink').length === 2);
    expect(ofType('unlink').map(pathOf).sort()).to.deep.equal([tree.path('docs/b.md'), tree.path('docs/deep/c.txt')]);
  });

  it('natively watches folders, not files: one inotify watch per folder however many files it holds', async function () {
    if (process.platform !== 'linux') this.skip(); // inotify's own accounting, in /proc
    for (let i = 0; i < 200; i++) await tree.write(`docs/many/f${i}.txt`, `file ${i}`);
    const before = inotifyWatches();
    await start().watch({ jobId: 1, root: tree.root, recursive: true, filePattern: null });
    // root, docs, docs/deep, docs/many, keys: 5 folders, 205 files (one watch per file would be 210)
    expect(inotifyWatches() - before).to.equal(core.states()[0]!.directories).and.to.equal(5);
    await writeFile(tree.path('docs/many/f7.txt'), 'changed in place');
    await has((e) => e.type === 'change' && e.path === tree.path('docs/many/f7.txt'));
  });

  it('never watches excluded folders or the data directory, and drops excluded files', async () => {
    await tree.write('data/pglite/base.db', 'db');
    await start({ ownDataDir: tree.path('data') }).watch({ jobId: 1, root: tree.root, recursive: true, filePattern: null });
    // chokidar's own view: excluded folders (node_modules/, keys/ holds only secrets but is a normal folder)
    // and the data directory are not watched at all.
    expect(core.watchedDirectories(1)).to.deep.equal([tree.root, tree.path('docs'), tree.path('docs/deep'), tree.path('keys')]);
    expect(core.states()[0]!.directories).to.equal(4);
    await tree.write('node_modules/pkg/new.md', 'x');
    await tree.write('data/pglite/wal', 'x');
    await tree.write('keys/id_ed25519', 'secret');
    await tree.write('visible.txt', 'x');
    await has((e) => pathOf(e) === tree.path('visible.txt'));
    await new Promise((r) => setTimeout(r, 300));
    expect(events.map(pathOf)).to.deep.equal([tree.path('visible.txt')]);
  });

  it('never reports a symbolic link made in a watched folder (to a file outside, or inside)', async () => {
    const outside = await tempTree({ 'shadow': 'root:secret-hash:19000' });
    try {
      await start().watch({ jobId: 1, root: tree.root, recursive: true, filePattern: null });
      await symlink(outside.path('shadow'), tree.path('x.txt'));
      await symlink(tree.path('a.txt'), tree.path('docs/alias.txt'));
      await tree.write('after.txt', 'a real file');
      await has((e) => pathOf(e) === tree.path('after.txt'));
      await new Promise((r) => setTimeout(r, 300));
      expect(events.map(pathOf)).to.deep.equal([tree.path('after.txt')]);
    } finally {
      await outside.remove();
    }
  });

  it('reports every file of a burst written into a folder made while watched', async () => {
    await start().watch({ jobId: 1, root: tree.root, recursive: true, filePattern: null });
    await mkdir(tree.path('fresh/inner'), { recursive: true });
    const names = Array.from({ length: 60 }, (_, i) => `fresh/inner/f${i}.txt`);
    await Promise.all(names.map((n) => writeFile(tree.path(n), n)));
    await eventually(() => new Set(ofType('add').map(pathOf)).size === names.length, 30_000);
    expect([...new Set(ofType('add').map(pathOf))].sort()).to.deep.equal(names.map((n) => tree.path(n)).sort());
  });

  it('reports the files of a folder made after chokidar read its new parent and before it watched it, and later ones', async () => {
    await start().watch({ jobId: 1, root: tree.root, recursive: true, filePattern: null });
    const fresh = tree.path('fresh');
    const inner = (name: string): string => path.join(fresh, 'inner', name);
    // chokidar reads a new folder, then watches it: this puts a folder with files in between, every time (on a busy
    // machine a `mkdir -p` burst falls there by itself now and then).
    const handler = NodeFsHandler.prototype as unknown as { _watchWithNodeFs: (p: string, ...rest: unknown[]) => unknown };
    const watchWithNodeFs = handler._watchWithNodeFs;
    handler._watchWithNodeFs = function (this: unknown, p: string, ...rest: unknown[]) {
      if (path.resolve(p) === fresh) {
        mkdirSync(path.join(fresh, 'inner'));
        for (let i = 0; i < 5; i++) writeFileSync(inner(`f${i}.txt`), `file ${i}`);
      }
      return watchWithNodeFs.call(this, p, ...rest);
    };
    try {
      await mkdir(fresh);
      const made = Array.from({ length: 5 }, (_, i) => inner(`f${i}.txt`));
      await eventually(() => made.every((f) => ofType('add').some((e) => pathOf(e) === f)), 30_000);
    } finally {
      handler._watchWithNodeFs = watchWithNodeFs;
    }
    // The folder is watched from then on.
    await writeFile(inner('later.txt'), 'written later');
    await has((e) => e.type === 'add' && pathOf(e) === inner('later.txt'));
  });

  it("tells when chokidar watches a new folder (the sweeps' stop rule reads chokidar's own state)", async () => {
    // chokidar announces a new folder, reads it, and only then watches it: the sweeps repeat until it does. If a
    // chokidar release moves that state, this fails instead of every new folder being read eight times.
    const watcher = chokidar.watch(tree.root);
    try {
      await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
      const announced: boolean[] = [];
      watcher.on('addDir', (p: string) => p === tree.path('fresh') && announced.push(watchesFolder(watcher, p)));
      expect(watchesFolder(watcher, tree.root)).to.equal(true);
      await mkdir(tree.path('fresh'));
      await eventually(() => watchesFolder(watcher, tree.path('fresh')));
      expect(announced).to.deep.equal([false]);
    } finally {
      await watcher.close();
    }
  });

  it("lists folders with a synchronous lstat per entry (readdirp's `_stat`, replaced in chokidar's listing stream)", async () => {
    // The listing's stats come from readdirp's `_stat`; if a release renames it, this fails instead of every start
    // quietly going back to an asynchronous lstat per file.
    const watcher = new ListingWatcher({ persistent: false });
    try {
      const stream = watcher._readdirp(tree.root) as unknown as { _stat: (p: string) => unknown; destroy(): void };
      const stats = stream._stat(tree.path('a.txt'));
      expect(stats).to.not.be.instanceOf(Promise);
      expect(stats).to.include({ size: 5 });
      stream.destroy();
    } finally {
      await watcher.close();
    }
    // And chokidar still reports what it finds through it.
    const seen: string[] = [];
    const listing = new ListingWatcher({ persistent: false, alwaysStat: true });
    listing.on('add', (p: string) => seen.push(p));
    listing.add(tree.root);
    await new Promise<void>((resolve) => listing.once('ready', () => resolve()));
    await listing.close();
    expect(seen.sort()).to.deep.equal([tree.path('a.txt'), tree.path('docs/b.md'), tree.path('docs/deep/c.txt'), tree.path('keys/id_rsa'), tree.path('node_modules/pkg/readme.md')]);
  });

  it('cuts a path under the root by its prefix only when nothing in it needs resolving', () => {
    expect(plainUnder('/home/me/docs', '/home/me/docs/a/b.txt')).to.equal(true);
    expect(plainUnder('/home/me/docs', '/home/me/docs/.hidden/b.txt')).to.equal(true);
    expect(plainUnder('/home/me/docs', '/home/me/docs/..b/c..')).to.equal(true);
    for (const p of ['/home/me/docs', '/home/me/docs/', '/home/me/docsx/a', '/home/me/docs/../etc/passwd', '/home/me/docs/a/./b', '/home/me/docs/a//b', '/home/me/docs/a/..', '/home/me/docs/a/.', 'home/me/docs/a']) {
      expect(plainUnder('/home/me/docs', p), p).to.equal(false);
    }
    expect(plainUnder('/', '/etc/passwd')).to.equal(false);
  });

  it("walks a watched job's folder as the scan's own walk does: filters, file_pattern, links, the data directory", async () => {
    const outside = await tempTree({ 'shadow.txt': 'not ours' });
    try {
      await symlink(outside.path('shadow.txt'), tree.path('docs/shadow.txt'));
      await symlink(outside.root, tree.path('elsewhere'));
      await tree.write('data/pglite/base.txt', 'our own database');
      await tree.write('docs/deep/d.md', '# delta');
      start({ ownDataDir: tree.path('data') });
      for (const [jobId, filePattern, recursive] of [[1, null, true], [2, '*.md', true], [3, null, false]] as const) {
        const root = jobId === 1 ? tree.root : jobId === 2 ? tree.path('docs') : tree.path('docs/deep');
        await core.watch({ jobId, root, recursive, filePattern });
        const errors: WalkError[] = [];
        const expected: WalkedFile[] = [];
        const pattern = filePattern === null ? null : compileFilePattern(filePattern);
        for await (const f of walkFiles(root, {
          matcher: compileFilter(defaultFilterConfig()),
          relativeTo: root,
          recursive,
          ...(pattern?.ok ? { filePattern: pattern.matcher } : {}),
          skipPaths: [tree.path('data')],
          onError: (e) => errors.push(e),
        })) {
          expected.push(f);
        }
        const walked = await core.walk(jobId);
        expect(walked.paths, `job ${jobId}`).to.deep.equal(expected.map((f) => f.path)).and.to.have.length.greaterThan(0);
        expect(walked.sizes).to.deep.equal(expected.map((f) => f.size));
        expect(walked.mtimes).to.deep.equal(expected.map((f) => f.mtimeMs));
        expect(walked.errors).to.deep.equal(errors);
      }
      const all = (await core.walk(1)).paths;
      expect(all).to.include(tree.path('docs/deep/d.md'));
      expect(all.filter((p) => p.startsWith(tree.path('data')) || p.startsWith(tree.path('node_modules')) || p.includes('shadow') || p.startsWith(tree.path('keys')))).to.deep.equal([]);
      await core.unwatch(3);
      let refused: unknown = null;
      await core.walk(3).catch((err: unknown) => (refused = err));
      expect(String(refused)).to.match(/not watched/);
    } finally {
      await outside.remove();
    }
  });

  it("respects the job's file_pattern and recursive flag", async () => {
    await start().watch({ jobId: 1, root: tree.root, recursive: false, filePattern: '*.md' });
    await tree.write('top.md', 'x');
    await tree.write('top.txt', 'x');
    await tree.write('docs/sub.md', 'x');
    await has((e) => pathOf(e) === tree.path('top.md'));
    await new Promise((r) => setTimeout(r, 300));
    expect(events.map(pathOf)).to.deep.equal([tree.path('top.md')]);
  });

  it('applies new filters to events at once and stops watching newly excluded folders', async () => {
    await start().watch({ jobId: 1, root: tree.root, recursive: true, filePattern: null });
    const filters = defaultFilterConfig();
    filters.blacklist_exclude = [...filters.blacklist_exclude, 'docs/', '*.log'];
    await core.setFilters(filters);
    await tree.write('docs/later.txt', 'x');
    await tree.write('app.log', 'x');
    await tree.write('kept.txt', 'x');
    await has((e) => pathOf(e) === tree.path('kept.txt'));
    await new Promise((r) => setTimeout(r, 300));
    // (a.txt, written a moment before the watch was renewed, is reported again: the renewal catches up.)
    expect(events.map(pathOf).filter((p) => p !== tree.path('a.txt') && p !== tree.path('kept.txt'))).to.deep.equal([]);
    expect(core.watchedDirectories(1)).to.deep.equal([tree.root, tree.path('keys')]);
  });

  it('falls back to polling when the OS refuses more watches, says why, and keeps reporting changes', async () => {
    await start({ simulateNativeError: 'ENOSPC' }).watch({ jobId: 1, root: tree.root, recursive: true, filePattern: null });
    const mode = (await eventually(() => events.find((e) => e.type === 'mode'))) as Extract<WatcherEvent, { type: 'mode' }>;
    expect(mode).to.include({ jobId: 1, mode: 'polling' });
    expect(mode.reason).to.match(/ENOSPC.*polling.*max_user_watches/);
    expect(events.find((e) => e.type === 'error')).to.include({ code: 'ENOSPC' });
    expect(core.states()[0]).to.include({ mode: 'polling', ready: true });
    await writeFile(tree.path('a.txt'), 'changed while polling');
    const later = new Date(Date.now() + 10_000);
    await utimes(tree.path('a.txt'), later, later);
    await has((e) => e.type === 'change' && e.path === tree.path('a.txt'));
    await tree.write('docs/polled.txt', 'new');
    await has((e) => e.type === 'add' && e.path === tree.path('docs/polled.txt'));
  });

  it('falls back during the first scan of a big tree: the native watches go at once, one error with the count', async () => {
    await Promise.all(Array.from({ length: 120 }, (_, i) => tree.write(`many/d${i}/f.txt`, String(i))));
    // Every folder chokidar tries to watch is refused (as inotify does at its limit), from its first scan on.
    await start({ simulateNativeError: 'ENOSPC' }).watch({ jobId: 1, root: tree.root, recursive: true, filePattern: null });
    await eventually(() => ofType('mode').length > 0);
    expect(core.states()[0]).to.include({ mode: 'polling', ready: true });
    const errors = ofType('error');
    expect(errors).to.have.length(1); // not one per refused folder
    expect((errors[0] as Extract<WatcherEvent, { type: 'error' }>).message).to.match(/\(\d+ folders? refused\)/);
    const mode = ofType('mode')[0] as Extract<WatcherEvent, { type: 'mode' }>;
    expect(mode.reason).to.match(/ENOSPC: .*\d+ folders? refused/);
    await tree.write('many/d7/late.txt', 'written while polled');
    await has((e) => e.type === 'add' && e.path === tree.path('many/d7/late.txt'));
  });

  it('stops a watch at once when it is removed in the middle of its first scan (nothing waits for it)', async () => {
    await Promise.all(Array.from({ length: 300 }, (_, i) => tree.write(`big/d${i % 60}/f${i}.txt`, String(i))));
    const c = start();
    const watching = c.watch({ jobId: 1, root: tree.root, recursive: true, filePattern: null });
    await c.unwatch(1); // before chokidar is ready: both promises must settle (a hang here hung DELETE and shutdown)
    const state = await watching;
    expect(state.jobId).to.equal(1);
    expect(c.states()).to.deep.equal([]);
    await tree.write('after.txt', 'not watched any more');
    await new Promise((r) => setTimeout(r, 300));
    expect(events.some((e) => pathOf(e) === tree.path('after.txt'))).to.equal(false);
  });

  /** Writes a file whose name holds the byte 0xE9 (latin-1 é, not valid UTF-8); returns the name we are given for it. */
  async function writeLatin1Name(folder: string, stem: string): Promise<string> {
    await writeFile(Buffer.concat([Buffer.from(path.join(folder, stem)), Buffer.from([0xe9]), Buffer.from('.txt')]), 'latin-1 name');
    return path.join(folder, `${stem}\uFFFD.txt`);
  }

  it('reports a file created with a name that is not valid UTF-8 once, as an add (natively, in a new folder, polling)', async () => {
    await start().watch({ jobId: 1, root: tree.root, recursive: true, filePattern: null });
    const inRoot = await writeLatin1Name(tree.root, 'caf');
    await has((e) => e.type === 'add' && e.path === inRoot);
    await mkdir(tree.path('fresh'));
    const inNewFolder = await writeLatin1Name(tree.path('fresh'), 'new');
    await has((e) => e.type === 'add' && e.path === inNewFolder);
    await tree.write('after.txt', 'a later ordinary file');
    await has((e) => e.type === 'add' && e.path === tree.path('after.txt'));
    expect(events.filter((e) => pathOf(e) === inRoot)).to.have.length(1);
    await core.close();

    await start({ simulateNativeError: 'ENOSPC' }).watch({ jobId: 2, root: tree.root, recursive: true, filePattern: null });
    await eventually(() => core.states()[0]?.mode === 'polling' && core.states()[0]?.ready);
    const polled = await writeLatin1Name(tree.path('docs'), 'polled');
    await has((e) => e.type === 'add' && e.path === polled);
  });

  it('sends a burst in batches of at most maxBatch events', async () => {
    await start().watch({ jobId: 1, root: tree.root, recursive: true, filePattern: null });
    await mkdir(tree.path('burst'));
    await Promise.all(Array.from({ length: 1200 }, (_, i) => writeFile(tree.path(`burst/f${i}.txt`), String(i))));
    // Generous: under heavy load chokidar's stat of each new file is slow, not lost (a failure says how many came).
    await eventually(() => ofType('add').length === 1200, 60_000).catch(() => {
      throw new Error(`${ofType('add').length} of 1200 adds reported after 60 s (${new Set(ofType('add').map(pathOf)).size} distinct)`);
    });
    expect(batches).to.be.at.least(3);
  });
});

/** The inotify watches this process holds (Linux: one `inotify wd:` line per watch in each inotify fd's fdinfo). */
function inotifyWatches(): number {
  let watches = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`).includes('inotify')) {
        watches += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n').filter((line) => line.startsWith('inotify wd:')).length;
      }
    } catch {
      // an fd closed meanwhile
    }
  }
  return watches;
}
