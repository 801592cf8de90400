import { expect } from 'chai';
import { symlink } from 'node:fs/promises';
import { directoryBytes, listFiles } from '../../../bench/lib/files.js';
import { tempTree, type TempTree } from '../../helpers/files.js';

describe('the benchmarks\' file listing', () => {
  let tree: TempTree;
  let outside: TempTree;

  beforeEach(async () => {
    tree = await tempTree({ 'x.bin': new Uint8Array(1000), 'd/e/y.bin': new Uint8Array(234), 'd/SOURCE.md': 'from' });
    outside = await tempTree({ 'secret.txt': 'not part of the corpus' });
    // Links to a folder inside the tree, to one outside it, and to a file: a corpus counts none of them (the
    // service never follows one), though readdir's `recursive` follows links to folders on Node 26.
    await symlink(tree.path('d'), tree.path('again'));
    await symlink(outside.root, tree.path('elsewhere'));
    await symlink(tree.path('x.bin'), tree.path('x-link.bin'));
  });

  afterEach(async () => {
    await tree.remove();
    await outside.remove();
  });

  it('lists the regular files below a folder, sorted, never through a link', async () => {
    expect(await listFiles(tree.root)).to.deep.equal([tree.path('d/SOURCE.md'), tree.path('d/e/y.bin'), tree.path('x.bin')]);
  });

  it('leaves out what the caller does not keep', async () => {
    expect(await listFiles(tree.root, (file) => !file.endsWith('.md'))).to.deep.equal([tree.path('d/e/y.bin'), tree.path('x.bin')]);
  });

  it('adds up the sizes of every file below a folder, never through a link', async () => {
    expect(await directoryBytes(tree.root)).to.equal(1238);
  });
});
