import { expect } from 'chai';
import { rename, symlink } from 'node:fs/promises';
import { openNoFollow } from '../../src/lib/no-follow.js';
import { parseFile } from '../../src/pipeline/stages/parse.js';
import { tempTree, type TempTree } from '../helpers/files.js';

describe('openNoFollow: a link is never followed, in the last component or above it', () => {
  let tree: TempTree;
  let outside: TempTree;
  beforeEach(async () => {
    tree = await tempTree({ 'docs/plain.txt': 'plain words' });
    outside = await tempTree({ 'shadow': 'root:$6$secret-hash:19000:0:99999:7:::' });
  });
  afterEach(async () => {
    await tree.remove();
    await outside.remove();
  });

  it('opens a regular file named by its real path', async () => {
    const opened = await openNoFollow(tree.path('docs', 'plain.txt'));
    expect(opened.ok).to.equal(true);
    if (opened.ok) {
      expect((await opened.handle.readFile()).toString()).to.equal('plain words');
      await opened.handle.close();
    }
  });

  it('refuses a link to a file outside the tree', async () => {
    await symlink(outside.path('shadow'), tree.path('docs', 'shadow.txt'));
    const opened = await openNoFollow(tree.path('docs', 'shadow.txt'));
    expect(opened).to.deep.include({ ok: false, code: 'symlink' });
  });

  it('refuses a file reached through a linked folder (a parent swapped for a link after the walk)', async () => {
    // The walk saw docs/ as a folder; then docs/ becomes a link to a folder holding a file of the same name.
    await rename(tree.path('docs'), tree.path('docs-real'));
    await symlink(outside.root, tree.path('docs'));
    await rename(outside.path('shadow'), outside.path('plain.txt'));
    const opened = await openNoFollow(tree.path('docs', 'plain.txt'));
    expect(opened).to.deep.include({ ok: false, code: 'symlink' });
  });

  it('is what the parse stage opens with: a link is "not a file" and nothing of its target is read', async () => {
    await symlink(outside.path('shadow'), tree.path('docs', 'shadow.txt'));
    const outcome = await parseFile(tree.path('docs', 'shadow.txt'), { maxFileBytes: 1 << 20, maxTextChars: 10_000 });
    expect(outcome).to.deep.include({ ok: false, code: 'not_a_file' });
    expect(JSON.stringify(outcome)).not.to.include('secret-hash');
  });
});
