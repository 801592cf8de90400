import { expect } from 'chai';
import path from 'node:path';
import { addPattern, setMode } from '../../src/filters/config.js';
import { defaultFilterConfig } from '../../src/filters/defaults.js';
import { FilterRunner } from '../../src/indexing/filter-runner.js';
import { compileFilter } from '../../src/filters/matcher.js';
import type { FilterMatcher } from '../../src/filters/matcher.js';
import type { FilterConfig } from '../../src/filters/schema.js';
import type { AnyBusEvent } from '../../src/events/types.js';
import type { WatchJob } from '../../src/store/repositories/jobs.repository.js';
import { forEachEngine } from '../helpers/engines.js';
import { tempTree, type TempTree } from '../helpers/files.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { OwnDataDir } from '../../src/lib/paths.js';

/** The filter state FilterRunner reads: a configuration and its compiled matcher (what FilterService holds). */
class FilterState {
  config: FilterConfig = defaultFilterConfig();
  matcher: FilterMatcher = compileFilter(this.config);
  set(next: FilterConfig): FilterConfig {
    const previous = this.config;
    this.config = next;
    this.matcher = compileFilter(next);
    return previous;
  }
}

function job(root: string): WatchJob {
  return { id: 1, path: root, is_active: true, recursive: true, file_pattern: null, last_scan: null, created_at: null, updated_at: null };
}

forEachEngine('FilterRunner', (engine) => {
  let t: TestService;
  let tree: TempTree;
  let state: FilterState;
  let jobs: WatchJob[];
  let applier: FilterRunner;
  let events: AnyBusEvent[];

  const indexed = async (): Promise<string[]> =>
    (await t.service.store.api.files.listPaths(null, 1000)).filter((p) => p.startsWith(tree.root + path.sep)).map((p) => path.basename(p)).sort();

  before(async () => {
    t = await startTestService(engine);
    t.service.bus.subscribe((e) => events.push(e));
    tree = await tempTree({
      'a.md': '# Alpha\n\nNotes about alpine lakes.\n',
      'b.py': 'print("bravo")\n',
      'c.md': '# Charlie\n\nA chart of coastal winds.\n',
      'd.py': 'print("delta")\n',
      'e.md': '# Echo\n\nCanyon acoustics.\n',
      'f.py': 'print("foxtrot")\n',
      'g.txt': 'Golf course opening hours.\n',
    });
    t.service.indexing.startDirectory(tree.root, { kind: 'directory', force: false });
    await t.service.indexing.settled();
    state = new FilterState();
    jobs = [];
    applier = new FilterRunner({
      filters: state,
      jobs: { list: () => jobs },
      files: t.service.store.api.files,
      indexing: t.service.indexing,
      logger: t.service.logger,
      ownData: new OwnDataDir(t.dataDir),
      pageSize: 2, // several pages, with removals between them
    });
  });
  beforeEach(() => {
    events = [];
  });
  after(async () => {
    await t.destroy();
    await tree.remove();
  });

  it('listPaths pages through the index in path order', async () => {
    const files = t.service.store.api.files;
    const all = await files.listPaths(null, 1000);
    const paged: string[] = [];
    for (let after: string | null = null; ; ) {
      const page = await files.listPaths(after, 3);
      paged.push(...page);
      if (page.length < 3) break;
      after = page[page.length - 1]!;
    }
    expect(paged).to.deep.equal(all);
    expect(all.length).to.equal(7);
  });

  it('removes the excluded files across pages, with file_removed events (reason excluded) in one filters run', async () => {
    state.set(setMode(defaultFilterConfig(), 'whitelist').config);
    const outcome = await applier.apply();
    expect(outcome).to.include({ removed: 3, queued: 0 });
    expect(await indexed()).to.deep.equal(['a.md', 'c.md', 'e.md', 'g.txt']);
    await applier.settled();
    const removed = events.filter((e) => e.type === 'file_removed').map((e) => e.data as { path: string; reason: string; run_id: string });
    expect(removed.map((r) => path.basename(r.path)).sort()).to.deep.equal(['b.py', 'd.py', 'f.py']);
    expect(removed.every((r) => r.reason === 'excluded' && r.run_id === outcome.runId)).to.equal(true);
    const completed = events.find((e) => e.type === 'index_run_completed')?.data as { kind: string; removed: number; path: string };
    expect(completed).to.include({ kind: 'filters', removed: 3, path: '' });
  });

  it('queues the included files of watched folders that are not indexed, and indexes them', async () => {
    jobs = [job(tree.root)];
    const previous = state.set(defaultFilterConfig());
    const outcome = await applier.apply({ previous });
    expect(outcome).to.include({ removed: 0, queued: 3 });
    await applier.settled();
    expect(await indexed()).to.deep.equal(['a.md', 'b.py', 'c.md', 'd.py', 'e.md', 'f.py', 'g.txt']);
  });

  it('after a complete application, an added exclude pattern reads the index only (no walk)', async () => {
    await tree.write('h.md', '# Hotel\n\nNew since the last scan.\n');
    const added = addPattern(state.config, { pattern: '*.txt', list: 'exclude' });
    if (!added.ok) throw new Error(added.reason);
    const previous = state.set(added.config);
    const outcome = await applier.apply({ previous });
    // h.md is not queued: an exclude pattern can only take files out, so the folders were not walked.
    expect(outcome).to.include({ removed: 1, queued: 0 });
    await applier.settled();
    // Without `previous` both passes run: the new file is found.
    const full = await applier.apply();
    expect(full).to.include({ removed: 0, queued: 1 });
    await applier.settled();
    expect(await indexed()).to.deep.equal(['a.md', 'b.py', 'c.md', 'd.py', 'e.md', 'f.py', 'h.md']);
  });
});
