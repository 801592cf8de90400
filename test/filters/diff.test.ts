import path from 'node:path';
import { expect } from 'chai';
import { addPattern, applyConfigUpdate, normaliseConfig, setMode } from '../../src/filters/config.js';
import { defaultFilterConfig } from '../../src/filters/defaults.js';
import { changeDirection, filesLeavingIndex, filesToQueue } from '../../src/filters/diff.js';
import type { IndexedFileRef, QueueCandidate, WatchedRootSpec } from '../../src/filters/diff.js';
import { compileFilter } from '../../src/filters/matcher.js';
import type { FilterConfig } from '../../src/filters/schema.js';
import { walkFiles } from '../../src/filters/walk.js';
import type { WalkError, WalkSummary } from '../../src/filters/walk.js';
import { DOCUMENTS, makeTree, removeTree } from './fixture-tree.js';

function withPattern(config: FilterConfig, pattern: string, list: 'exclude' | 'include'): FilterConfig {
  const r = addPattern(config, { pattern, list });
  if (!r.ok) throw new Error(r.reason);
  return r.config;
}

async function collectQueue(gen: AsyncGenerator<QueueCandidate>): Promise<string[]> {
  const out: string[] = [];
  for await (const f of gen) out.push(f.relativePath);
  return out.sort();
}

/** What an index holds after scanning `root` with `config`: the walked files, as refs. */
async function indexWith(root: string, config: FilterConfig): Promise<IndexedFileRef[]> {
  const refs: IndexedFileRef[] = [];
  for await (const f of walkFiles(root, { matcher: compileFilter(config) })) refs.push({ path: f.path, root });
  return refs;
}

describe('changeDirection', () => {
  const base = defaultFilterConfig();
  const cases: [string, FilterConfig, { mayExclude: boolean; mayInclude: boolean }][] = [
    ['nothing changed', base, { mayExclude: false, mayInclude: false }],
    ['an exclude pattern added', withPattern(base, '*.psd', 'exclude'), { mayExclude: true, mayInclude: false }],
    ['an include pattern added', withPattern(base, '/keep/', 'include'), { mayExclude: false, mayInclude: true }],
    ['an exclude pattern removed', normaliseConfig({ ...base, blacklist_exclude: base.blacklist_exclude.slice(1) }), { mayExclude: false, mayInclude: true }],
    ['an include pattern removed', normaliseConfig({ ...base, blacklist_include: [] }), { mayExclude: true, mayInclude: false }],
    ['the mode switched', setMode(base, 'whitelist').config, { mayExclude: true, mayInclude: true }],
    ['only the inactive lists changed', normaliseConfig({ ...base, whitelist_include: ['*.x'] }), { mayExclude: false, mayInclude: false }],
    ['only the case of a pattern changed', normaliseConfig({ ...base, blacklist_include: base.blacklist_include.map((p) => p.toUpperCase()) }), { mayExclude: false, mayInclude: false }],
  ];
  for (const [name, next, expected] of cases) {
    it(`${name}: ${JSON.stringify(expected)}`, () => {
      expect(changeDirection(base, next)).to.deep.equal(expected);
    });
  }
});

describe('filesLeavingIndex', () => {
  let root: string;
  beforeEach(async () => {
    root = await makeTree();
  });
  afterEach(async () => {
    await removeTree(root);
  });

  it('finds the indexed files the new configuration excludes, with the reason', async () => {
    const everything = normaliseConfig({ ...defaultFilterConfig(), blacklist_exclude: [], blacklist_include: [] });
    const indexed = await indexWith(root, everything);
    const { leaving, outsideRoot } = filesLeavingIndex(indexed, compileFilter(defaultFilterConfig()));
    expect(outsideRoot).to.deep.equal([]);
    expect(indexed.length - leaving.length).to.equal(DOCUMENTS.length);
    const env = leaving.find((f) => f.relativePath === 'project/.env');
    expect(env?.decision).to.deep.equal({
      indexed: false,
      mode: 'blacklist',
      decidedBy: { list: 'exclude', pattern: '.env', matchedPath: 'project/.env' },
      reason: "excluded by pattern '.env' (blacklist exclude)",
    });
    expect(env?.path).to.equal(path.join(root, 'project', '.env'));
  });

  it('with the previous matcher, returns only newly excluded files', async () => {
    const before = defaultFilterConfig();
    const after = withPattern(before, '*.md', 'exclude');
    const indexed = [...(await indexWith(root, before)), { path: path.join(root, 'project', '.env'), root }]; // forced in
    const { leaving } = filesLeavingIndex(indexed, compileFilter(after), { previous: compileFilter(before) });
    expect(leaving.map((f) => f.relativePath).sort()).to.deep.equal(['Documents/notes.md', 'project/README.md', 'project/docs/guide.md']);
    const all = filesLeavingIndex(indexed, compileFilter(after));
    expect(all.leaving.map((f) => f.relativePath)).to.include('project/.env');
  });

  it('sets apart files that are not inside their stated root', () => {
    const ref = { path: '/elsewhere/x.md', root: '/srv/docs' };
    expect(filesLeavingIndex([ref], compileFilter(defaultFilterConfig()))).to.deep.equal({ leaving: [], outsideRoot: [ref] });
  });
});

describe('filesToQueue', () => {
  let root: string;
  beforeEach(async () => {
    root = await makeTree();
  });
  afterEach(async () => {
    await removeTree(root);
  });

  it('yields the files the new configuration includes that are not indexed', async () => {
    const before = withPattern(defaultFilterConfig(), '*.md', 'exclude');
    const indexed = new Set((await indexWith(root, before)).map((r) => r.path));
    const queued = await collectQueue(filesToQueue([{ path: root }], compileFilter(defaultFilterConfig()), { isIndexed: (p) => indexed.has(p) }));
    expect(queued).to.deep.equal(['Documents/notes.md', 'project/README.md', 'project/docs/guide.md']);
  });

  it('with the previous matcher, yields only newly included files', async () => {
    const before = withPattern(defaultFilterConfig(), '*.md', 'exclude');
    const queued = await collectQueue(filesToQueue([{ path: root }], compileFilter(defaultFilterConfig()), { previous: compileFilter(before) }));
    expect(queued).to.deep.equal(['Documents/notes.md', 'project/README.md', 'project/docs/guide.md']);
  });

  it("respects each root's file_pattern and recursion, tags files with their root, and reports bad patterns", async () => {
    const errors: WalkError[] = [];
    const summaries: WalkSummary[] = [];
    const roots: WatchedRootSpec[] = [
      { path: path.join(root, 'Documents'), filePattern: '*.pdf' },
      { path: path.join(root, 'project'), recursive: false },
      { path: path.join(root, 'keys'), filePattern: '*.{bad' },
    ];
    const got: QueueCandidate[] = [];
    for await (const f of filesToQueue(roots, compileFilter(defaultFilterConfig()), { onError: (e) => errors.push(e), onRootDone: (_r, s) => summaries.push(s) })) got.push(f);
    expect(got.map((f) => `${path.basename(f.root)}:${f.relativePath}`).sort()).to.deep.equal([
      'Documents:House/Build/permit.pdf',
      'Documents:Invoice (1).pdf',
      'Documents:report.pdf',
      'project:.env.example',
      'project:.env.sample',
      'project:.gitignore',
      'project:README.md',
    ]);
    expect(errors).to.have.length(1);
    expect(errors[0]).to.include({ code: 'invalid_pattern', path: path.join(root, 'keys') });
    expect(summaries).to.have.length(2);
  });

  it('brings the index in line across a mode switch and back (the apply cycle)', async () => {
    const blacklist = defaultFilterConfig();
    const index = new Set((await indexWith(root, blacklist)).map((r) => r.path));
    const apply = async (from: FilterConfig, to: FilterConfig): Promise<{ removed: string[]; queued: string[] }> => {
      const next = compileFilter(to);
      const refs = [...index].map((p) => ({ path: p, root }));
      const { leaving } = filesLeavingIndex(refs, next);
      for (const f of leaving) index.delete(f.path);
      const queued: string[] = [];
      if (changeDirection(from, to).mayInclude) {
        for await (const f of filesToQueue([{ path: root }], next, { isIndexed: (p) => index.has(p) })) {
          queued.push(f.relativePath);
          index.add(f.path); // the queue indexes it
        }
      }
      return { removed: leaving.map((f) => f.relativePath).sort(), queued: queued.sort() };
    };

    const whitelist = applyConfigUpdate(blacklist, { mode: 'whitelist' });
    if (!whitelist.ok) throw new Error(whitelist.reason);
    const toWhite = await apply(blacklist, whitelist.config);
    expect(toWhite.removed).to.deep.equal([
      'project/.env.example',
      'project/.env.sample',
      'project/.gitignore',
      'project/certs/ca.crt',
      'project/src/index.ts',
      'project/src/util.py',
    ]);
    expect(toWhite.queued).to.deep.equal([]);

    const toBlack = await apply(whitelist.config, setMode(whitelist.config, 'blacklist').config);
    expect(toBlack.removed).to.deep.equal([]);
    expect(toBlack.queued).to.deep.equal(toWhite.removed);
    expect([...index].map((p) => path.relative(root, p).split(path.sep).join('/')).sort()).to.deep.equal(DOCUMENTS);
  });
});
