import { expect } from 'chai';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { spawnWatcher, type WatcherEvent, type WatcherHandle } from '../../../src/actors/watcher/client.js';
import { defaultFilterConfig } from '../../../src/filters/defaults.js';
import { createLogger } from '../../../src/logger.js';
import { eventually } from '../../helpers/assert.js';
import { tempTree, type TempTree } from '../../helpers/files.js';

describe('spawnWatcher (chokidar in a worker thread)', function () {
  this.timeout(30_000);
  let tree: TempTree;
  let watcher: WatcherHandle;
  let events: WatcherEvent[];
  let restarted: number[][];

  beforeEach(async () => {
    tree = await tempTree({ 'a.txt': 'alpha', 'sub/b.txt': 'bravo' });
    events = [];
    restarted = [];
    watcher = await spawnWatcher({
      ownDataDir: path.join(tree.root, '.data'),
      filters: defaultFilterConfig(),
      tuning: { batchIntervalMs: 20, moveQuietMs: 100 },
      onEvents: (batch) => events.push(...batch),
      onRestarted: (jobs) => restarted.push(jobs),
      logger: createLogger('silent'),
    });
  });
  afterEach(async () => {
    await watcher.close();
    await tree.remove();
  });

  it('watches on another thread and delivers batched events to this one', async () => {
    const state = await watcher.watch({ jobId: 7, root: tree.root, recursive: true, filePattern: null });
    expect(state).to.include({ jobId: 7, root: tree.root, mode: 'native', ready: true });
    expect(watcher.worker?.threadId).to.be.a('number').and.not.equal(0);
    await writeFile(tree.path('sub/c.txt'), 'charlie');
    await rm(tree.path('a.txt'));
    await eventually(() => events.some((e) => e.type === 'add' && e.path === tree.path('sub/c.txt')));
    await eventually(() => events.some((e) => e.type === 'unlink' && e.path === tree.path('a.txt')));
    expect(await watcher.states()).to.have.length(1);
    await watcher.unwatch(7);
    expect(await watcher.states()).to.deep.equal([]);
  });

  it('refuses an invalid file pattern with a clear error', async () => {
    let message = '';
    await watcher.watch({ jobId: 1, root: tree.root, recursive: true, filePattern: '[' }).catch((err: Error) => (message = err.message));
    expect(message).to.match(/file_pattern/);
  });

  it('starts a new thread watching the same jobs when the thread dies, and says which jobs to re-scan', async () => {
    await watcher.watch({ jobId: 3, root: tree.root, recursive: true, filePattern: null });
    const first = watcher.worker!;
    await first.terminate();
    await eventually(() => restarted.length === 1, 20_000);
    expect(restarted).to.deep.equal([[3]]);
    expect(watcher.restarts).to.equal(1);
    expect(watcher.worker).to.not.equal(first);
    await writeFile(tree.path('after-restart.txt'), 'x');
    await eventually(() => events.some((e) => e.type === 'add' && e.path === tree.path('after-restart.txt')));
  });
});
