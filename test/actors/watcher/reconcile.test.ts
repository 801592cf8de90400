import { expect } from 'chai';
import { rename, rm, writeFile } from 'node:fs/promises';
import type { WatchJob } from '../../../src/store/repositories/jobs.repository.js';
import { eventually } from '../../helpers/assert.js';
import { forEachEngine } from '../../helpers/engines.js';
import { tempTree, type TempTree } from '../../helpers/files.js';
import { fileRecord, gone, indexed, queueIdle, startWatchService, type WatchHarness } from './helpers.js';

forEachEngine('watch jobs across restarts and watch limits', (engine) => {
  let h: WatchHarness;
  let tree: TempTree;

  beforeEach(async () => {
    tree = await tempTree({
      'keep.txt': 'Hedgehogs hibernate under piles of autumn leaves.',
      'edit.txt': 'The bakery opens at seven on weekdays.',
      'drop.txt': 'This file is deleted while the service is down.',
      'old-name.txt': 'Renamed while the service was down.',
    });
  });
  afterEach(async () => {
    await h.t.destroy();
    await tree.remove();
  });

  it('reconciles every active job on start: changes made while the service was down are caught up, last_scan set', async function () {
    // A stop, a restart and eight conditions of up to 20 s each: at load 20 their sum passes mocha's 60 s default,
    // which would cut the test while it is still within its own deadlines.
    this.timeout(240_000);
    h = await startWatchService(engine);
    const jobId = (await h.t.request('POST', '/api/watch/', { directory_path: tree.root })).body.job_id as number;
    await h.t.service.watcher.settled(jobId);
    await queueIdle(h.t);
    const firstScan = ((await h.t.request('GET', '/api/watch/jobs')).body.jobs as WatchJob[])[0]!.last_scan!;
    const kept = await fileRecord(h.t, tree.path('keep.txt'));

    await h.t.stop();
    await writeFile(tree.path('edit.txt'), 'The bakery opens at nine on Sundays.');
    await rm(tree.path('drop.txt'));
    await rename(tree.path('old-name.txt'), tree.path('new-name.txt'));
    await writeFile(tree.path('added.txt'), 'Puffins nest in burrows on steep cliffs.');
    h.events.length = 0;
    await h.restart();

    await indexed(h.t, tree.path('added.txt'), /Puffins/);
    await indexed(h.t, tree.path('edit.txt'), /nine/);
    await indexed(h.t, tree.path('new-name.txt'));
    await gone(h.t, tree.path('drop.txt'));
    await gone(h.t, tree.path('old-name.txt'));
    expect(await fileRecord(h.t, tree.path('keep.txt'))).to.include({ id: kept!.id, indexed_at: kept!.indexed_at });
    expect(h.events.find((e) => e.type === 'index_run_started')?.data).to.include({ kind: 'reconcile', path: tree.root, force: false });
    // The reconcile ends after its own passes over the changed files, on pipeline threads that start with the first
    // of them (none is started at a restart until a file needs one): generous under load.
    const job = await eventually(async () => {
      const j = ((await h.t.request('GET', '/api/watch/jobs')).body.jobs as WatchJob[])[0]!;
      return j.last_scan && j.last_scan > firstScan ? j : null;
    }, 60_000);
    expect(job).to.include({ id: jobId, is_active: true });
    // And the job is watched again.
    await writeFile(tree.path('live.txt'), 'Written after the restart.');
    await indexed(h.t, tree.path('live.txt'));
  });

  it('falls back to polling when the OS refuses more watches: says so in status and events, and misses nothing', async function () {
    this.timeout(240_000); // a watcher replaced and a rescan: 51 s at load 14, near mocha's 60 s default
    h = await startWatchService(engine, { watcherTuning: { batchIntervalMs: 30, moveQuietMs: 250, pollIntervalMs: 200, simulateNativeError: 'ENOSPC' } });
    const jobId = (await h.t.request('POST', '/api/watch/', { directory_path: tree.root })).body.job_id as number;
    const changed = await eventually(() => h.events.find((e) => e.type === 'watch_mode_changed'));
    expect(changed!.data).to.include({ job_id: jobId, path: tree.root, mode: 'polling' });
    expect((changed!.data as { reason: string }).reason).to.match(/ENOSPC/);
    expect(h.events.some((e) => e.type === 'watch_error' && (e.data as { code: string }).code === 'ENOSPC')).to.equal(true);
    const status = (await h.t.request('GET', '/api/status/')).body;
    expect(status.status).to.equal('degraded');
    expect(status.watcher).to.deep.include({ ok: false, polling: 1, native: 0 });
    const jobState = (status.watcher as { jobs: Record<string, unknown>[] }).jobs[0]!;
    expect(jobState).to.include({ job_id: jobId, mode: 'polling' });
    expect(jobState.reason).to.match(/ENOSPC.*polling/);

    await indexed(h.t, tree.path('keep.txt'));
    await writeFile(tree.path('while-polling.txt'), 'Created while the folder is polled.');
    await indexed(h.t, tree.path('while-polling.txt'));
    await rm(tree.path('drop.txt'));
    await gone(h.t, tree.path('drop.txt'));
  });
});
