import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { setMode } from '../../src/filters/config.js';
import { defaultFilterConfig } from '../../src/filters/defaults.js';
import { compileFilePattern, compileFilter } from '../../src/filters/matcher.js';
import type { FilterMatcher } from '../../src/filters/matcher.js';
import type { FilterConfig } from '../../src/filters/schema.js';
import { countFiles, walkFiles, walkFoldersSync } from '../../src/filters/walk.js';
import type { WalkedFile, WalkError, WalkOptions, WalkSummary } from '../../src/filters/walk.js';
import { DOCUMENTS, JUNK, makeTree, removeTree } from './fixture-tree.js';

async function collectAsync(root: string, options: WalkOptions = {}): Promise<{ files: WalkedFile[]; summary: WalkSummary }> {
  const files: WalkedFile[] = [];
  const walk = walkFiles(root, options);
  for (;;) {
    const step = await walk.next();
    if (step.done) return { files, summary: step.value };
    files.push(step.value);
  }
}

/** The same walk, synchronous and a folder at a time (the watcher thread's). */
async function collectSync(root: string, options: WalkOptions = {}): Promise<{ files: WalkedFile[]; summary: WalkSummary }> {
  const files: WalkedFile[] = [];
  const walk = walkFoldersSync(root, options);
  for (;;) {
    const step = walk.next();
    if (step.done) return { files, summary: step.value };
    files.push(...step.value);
  }
}

const rels = (files: WalkedFile[]): string[] => files.map((f) => f.relativePath).sort();

/** The real matcher, recording every path it is asked about. */
function recording(inner: FilterMatcher): { matcher: FilterMatcher; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    matcher: {
      mode: inner.mode,
      decide: (p, k) => inner.decide(p, k),
      isIndexed: (p, k) => (asked.push(p), inner.isIndexed(p, k)),
      shouldDescend: (p) => (asked.push(p), inner.shouldDescend(p)),
    },
  };
}

function blacklist(exclude: string[]): FilterConfig {
  return { mode: 'blacklist', exclude, include: [], blacklist_exclude: exclude, blacklist_include: [], whitelist_include: [], whitelist_exclude: [] };
}

for (const [name, collect] of [['walkFiles', collectAsync], ['walkFoldersSync', collectSync]] as const) describe(name, () => {
  let root: string;
  beforeEach(async () => {
    root = await makeTree();
  });
  afterEach(async () => {
    await removeTree(root);
  });

  it('with the default configuration yields the documents and none of the junk or secrets', async () => {
    const { files, summary } = await collect(root, { matcher: compileFilter(defaultFilterConfig()) });
    expect(rels(files)).to.deep.equal(DOCUMENTS);
    expect(summary.files).to.equal(DOCUMENTS.length);
    expect(summary.errors).to.equal(0);
    expect(summary.rootError).to.equal(null);
    expect(summary.excludedDirectories).to.be.greaterThan(5);
  });

  it('never opens an excluded folder', async () => {
    const { matcher, asked } = recording(compileFilter(defaultFilterConfig()));
    await collect(root, { matcher });
    expect(asked).to.include('project/node_modules');
    expect(asked).to.include('project/.git');
    expect(asked.filter((p) => p.startsWith('project/node_modules/') || p.startsWith('project/.git/'))).to.deep.equal([]);
  });

  it('yields absolute paths, POSIX relative paths, sizes and modification times', async () => {
    const { files } = await collect(root, { matcher: compileFilter(defaultFilterConfig()) });
    const notes = files.find((f) => f.relativePath === 'Documents/notes.md');
    expect(notes).to.not.equal(undefined);
    if (!notes) return;
    const stats = await fs.stat(path.join(root, 'Documents', 'notes.md'));
    expect(notes).to.deep.equal({ path: path.join(root, 'Documents', 'notes.md'), relativePath: 'Documents/notes.md', size: stats.size, mtimeMs: stats.mtimeMs });
  });

  it('walks in a deterministic order: depth first, names in code-point order, files before sub-folders', async () => {
    const a = (await collect(root)).files.map((f) => f.relativePath);
    const b = (await collect(root)).files.map((f) => f.relativePath);
    expect(a).to.deep.equal(b);
    expect(a.length).to.equal(DOCUMENTS.length + JUNK.length);
    expect(a.indexOf('project/README.md')).to.be.lessThan(a.indexOf('project/src/index.ts'));
    expect(a.indexOf('Documents/notes.md')).to.be.lessThan(a.indexOf('project/README.md'));
  });

  it('in whitelist mode walks ordinary folders to find included files, never excluded ones', async () => {
    const { files } = await collect(root, { matcher: compileFilter(setMode(defaultFilterConfig(), 'whitelist').config) });
    expect(rels(files)).to.deep.equal([
      'Documents/House/Build/permit.pdf',
      'Documents/Invoice (1).pdf',
      'Documents/Résumé.docx',
      'Documents/notes.md',
      'Documents/report.pdf',
      'project/README.md',
      'project/docs/guide.md',
    ]);
  });

  it("applies the job's file_pattern on top of the filter", async () => {
    const pattern = compileFilePattern('*.md');
    if (!pattern.ok) throw new Error(pattern.reason);
    const { files, summary } = await collect(root, { matcher: compileFilter(defaultFilterConfig()), filePattern: pattern.matcher });
    expect(rels(files)).to.deep.equal(['Documents/notes.md', 'project/README.md', 'project/docs/guide.md']);
    expect(summary.patternSkippedFiles).to.equal(DOCUMENTS.length - 3);
  });

  it('stays in the folder itself when not recursive', async () => {
    const { files } = await collect(root, { recursive: false });
    expect(rels(files)).to.deep.equal(['backup.p12', 'login.keychain-db', 'passwords.kdbx']);
  });

  it('judges paths relative to the watched root when walking a sub-folder', async () => {
    const matcher = compileFilter(blacklist(['/project/docs/', '/src/']));
    const { files } = await collect(path.join(root, 'project'), { relativeTo: root, matcher });
    const got = rels(files);
    expect(got).to.include('project/src/index.ts'); // '/src/' is anchored at the watched root, not at project/
    expect(got).to.not.include('project/docs/guide.md');
    const inside = await collect(path.join(root, 'project', 'docs'), { relativeTo: root, matcher });
    expect(inside.files).to.deep.equal([]);
    expect(inside.summary.excludedDirectories).to.equal(1);
  });

  it('reports a file whose name is not valid UTF-8 as invalid_name, not as an unreadable folder', async () => {
    // 'caf\xe9.txt' in Latin-1, as an old tool or another system writes it.
    const raw = Buffer.concat([Buffer.from(path.join(root, 'Documents') + path.sep), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x74, 0x78, 0x74])]);
    await fs.writeFile(raw, 'latin-1 name');
    const errors: WalkError[] = [];
    const { files } = await collect(root, { onError: (e) => errors.push(e) });
    expect(rels(files)).to.deep.equal([...DOCUMENTS, ...JUNK].sort());
    expect(errors).to.have.length(1);
    expect(errors[0]).to.include({ path: path.join(root, 'Documents', 'caf\uFFFD.txt'), code: 'invalid_name' });
    expect(errors[0]!.message).to.match(/not valid UTF-8/);
  });

  it('skips symbolic links by default', async () => {
    await fs.symlink('..', path.join(root, 'project', 'loop'));
    await fs.symlink('notes.md', path.join(root, 'Documents', 'link.md'));
    await fs.symlink('nowhere.md', path.join(root, 'Documents', 'dangling.md'));
    const { files, summary } = await collect(root);
    expect(summary.symlinksSkipped).to.equal(3);
    expect(rels(files)).to.deep.equal([...DOCUMENTS, ...JUNK].sort());
  });

  it('never follows a link, to a file or a folder, inside or outside the tree', async () => {
    const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'walk-outside-'));
    try {
      await fs.writeFile(path.join(outside, 'shadow'), 'root:secret');
      await fs.symlink(path.join(outside, 'shadow'), path.join(root, 'Documents', 'shadow.txt'));
      await fs.symlink(outside, path.join(root, 'outside-dir'));
      await fs.symlink(path.join(root, 'project', 'docs'), path.join(root, 'docs-link'));
      const errors: WalkError[] = [];
      const { files, summary } = await collect(root, { onError: (e) => errors.push(e) });
      expect(rels(files)).to.deep.equal([...DOCUMENTS, ...JUNK].sort());
      expect(files.some((f) => f.path.startsWith(outside) || f.relativePath.startsWith('docs-link/'))).to.equal(false);
      expect(summary.symlinksSkipped).to.equal(3);
      expect(errors).to.deep.equal([]);
    } finally {
      await fs.rm(outside, { recursive: true, force: true });
    }
  });

  it('never walks or yields skipped paths (e.g. the service data directory)', async () => {
    const { files } = await collect(root, { skipPaths: [path.join(root, 'Documents'), path.join(root, 'backup.p12')] });
    expect(files.some((f) => f.relativePath.startsWith('Documents/') || f.relativePath === 'backup.p12')).to.equal(false);
    const kept = [...DOCUMENTS, ...JUNK].filter((p) => !p.startsWith('Documents/') && p !== 'backup.p12');
    expect(rels(files)).to.deep.equal(kept.sort());
  });

  it('stops when aborted', async () => {
    const controller = new AbortController();
    const files: WalkedFile[] = [];
    let summary: WalkSummary | undefined;
    if (name === 'walkFiles') {
      const walk = walkFiles(root, { signal: controller.signal, statConcurrency: 1 });
      for (;;) {
        const step = await walk.next();
        if (step.done) {
          summary = step.value;
          break;
        }
        files.push(step.value);
        controller.abort();
      }
      expect(files).to.have.length(1);
    } else {
      // A folder at a time: the walk stops before the next folder.
      const walk = walkFoldersSync(root, { signal: controller.signal });
      let folders = 0;
      for (;;) {
        const step = walk.next();
        if (step.done) {
          summary = step.value;
          break;
        }
        folders++;
        files.push(...step.value);
        controller.abort();
      }
      expect(folders).to.equal(1);
    }
    expect(summary?.aborted).to.equal(true);
  });

  it('reports a missing root, a file root and a root outside relativeTo as values', async () => {
    const errors: WalkError[] = [];
    const missing = await collect(path.join(root, 'nope'), { onError: (e) => errors.push(e) });
    expect(missing.files).to.deep.equal([]);
    expect(missing.summary.rootError?.code).to.equal('ENOENT');
    const file = await collect(path.join(root, 'backup.p12'));
    expect(file.summary.rootError?.code).to.equal('ENOTDIR');
    const outside = await collect(root, { relativeTo: path.join(root, 'project') });
    expect(outside.summary.rootError?.code).to.equal('outside_root');
    expect(errors).to.have.length(1);
  });

  it('ignores sockets, FIFOs and devices', async () => {
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [path.join(root, 'Documents', 'pipe')]);
    const { files } = await collect(root, { matcher: compileFilter(defaultFilterConfig()) });
    expect(rels(files)).to.deep.equal(DOCUMENTS);
  });
});

describe('countFiles', () => {
  let root: string;
  beforeEach(async () => {
    root = await makeTree();
  });
  afterEach(async () => {
    await removeTree(root);
  });

  it('counts exactly the files walkFiles yields, under the same options, without reading a file', async () => {
    const pattern = compileFilePattern('*.md');
    if (!pattern.ok) throw new Error(pattern.reason);
    await fs.symlink('notes.md', path.join(root, 'Documents', 'link.md'));
    const cases: WalkOptions[] = [
      {},
      { matcher: compileFilter(defaultFilterConfig()) },
      { matcher: compileFilter(defaultFilterConfig()), filePattern: pattern.matcher },
      { recursive: false },
      { skipPaths: [path.join(root, 'Documents')] },
      { matcher: compileFilter(setMode(defaultFilterConfig(), 'whitelist').config) },
    ];
    for (const options of cases) {
      const walked = await collectAsync(root, options);
      const walkedSync = await collectSync(root, options);
      expect(walkedSync).to.deep.equal(walked, 'the synchronous walk yields what the asynchronous one does');
      const counted = await countFiles(root, options);
      expect(counted.files, JSON.stringify(Object.keys(options))).to.equal(walked.files.length).and.to.be.greaterThan(0);
      expect(counted.excludedDirectories).to.equal(walked.summary.excludedDirectories);
    }
  });

  it('reports a root it cannot walk, and stops when aborted', async () => {
    expect((await countFiles(path.join(root, 'nope'))).rootError?.code).to.equal('ENOENT');
    const controller = new AbortController();
    controller.abort();
    const summary = await countFiles(root, { signal: controller.signal });
    expect(summary).to.include({ aborted: true, files: 0 });
  });
});
