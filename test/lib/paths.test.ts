import { expect } from 'chai';
import { symlink } from 'node:fs/promises';
import { isWithin, OwnDataDir, realPathOf, systemRefusal } from '../../src/lib/paths.js';
import { tempTree, type TempTree } from '../helpers/files.js';

describe('paths: containment, the data directory and system folders', () => {
  let tree: TempTree;
  before(async () => {
    tree = await tempTree({ 'data/pglite/pg_hba.conf': 'local all all trust' });
    await symlink(tree.path('data'), tree.path('data-link'));
  });
  after(() => tree.remove());

  it('isWithin works on a path boundary', () => {
    expect(isWithin('/a/b', '/a/b/c')).to.equal(true);
    expect(isWithin('/a/b', '/a/bc')).to.equal(false);
  });

  it('OwnDataDir compares real paths: the data directory reached through a link is still refused', async () => {
    const own = new OwnDataDir(tree.path('data-link'));
    expect(own.path).to.equal(tree.path('data'));
    expect(own.refusal(await realPathOf(tree.path('data-link', 'pglite')))).to.match(/own data directory/);
    expect(own.contains(tree.path('data', 'pglite', 'pg_hba.conf'))).to.equal(true);
    expect(own.contains(tree.path('data-link', 'pglite'))).to.equal(true);
    expect(own.contains(tree.path('elsewhere'))).to.equal(false);
  });

  it('OwnDataDir tells a root that can hold it (or sits inside it), by either spelling, from one that cannot', () => {
    const own = new OwnDataDir(tree.path('data-link'));
    expect(own.overlaps(tree.root)).to.equal(true);
    expect(own.overlaps(tree.path('data', 'pglite'))).to.equal(true);
    expect(own.overlaps(tree.path('data-link'))).to.equal(true);
    expect(own.overlaps(tree.path('elsewhere'))).to.equal(false);
    expect(own.overlaps(tree.path('dat'))).to.equal(false);
  });

  it('realPathOf resolves links and keeps a missing tail', async () => {
    expect(await realPathOf(tree.path('data-link', 'pglite'))).to.equal(tree.path('data', 'pglite'));
    expect(await realPathOf(tree.path('data-link', 'not', 'yet'))).to.equal(tree.path('data', 'not', 'yet'));
  });

  it('refuses the file-system root and the kernel pseudo-filesystems, nothing else', () => {
    for (const p of ['/', '/proc', '/proc/1/environ', '/sys/class', '/dev', '/run/user/1000']) expect(systemRefusal(p), p).to.be.a('string');
    for (const p of ['/home/me', '/procedures', '/srv/run', tree.root]) expect(systemRefusal(p), p).to.equal(null);
  });
});
