import path from 'node:path';
import { expect } from 'chai';
import { findRoot, normaliseRelativePath, relativeToRoot } from '../../src/filters/paths.js';

describe('normaliseRelativePath', () => {
  it('normalises separators, dots, repeated and trailing slashes', () => {
    expect(normaliseRelativePath('a\\b\\c.md', { windows: true })).to.equal('a/b/c.md');
    expect(normaliseRelativePath('a\\b', { windows: false })).to.equal('a\\b');
    expect(normaliseRelativePath('./a//b/./c/')).to.equal('a/b/c');
    expect(normaliseRelativePath('.')).to.equal('');
    expect(normaliseRelativePath('')).to.equal('');
  });

  it('converts to NFC', () => {
    expect(normaliseRelativePath('é'.normalize('NFD'))).to.equal('é'.normalize('NFC'));
  });

  it('throws on absolute paths and escapes from the root', () => {
    expect(() => normaliseRelativePath('/etc')).to.throw(TypeError);
    expect(() => normaliseRelativePath('C:\\x', { windows: true })).to.throw(TypeError);
    expect(() => normaliseRelativePath('a/../../b')).to.throw(TypeError);
    expect(() => normaliseRelativePath('..')).to.throw(TypeError);
  });
});

describe('relativeToRoot', () => {
  const root = path.resolve('/srv/docs');
  it('gives the POSIX path inside the root, or null outside it', () => {
    expect(relativeToRoot(root, path.join(root, 'a', 'b.md'))).to.equal('a/b.md');
    expect(relativeToRoot(root, root)).to.equal('');
    expect(relativeToRoot(root, path.resolve('/srv/docs-old/x'))).to.equal(null);
    expect(relativeToRoot(root, path.resolve('/srv'))).to.equal(null);
    expect(relativeToRoot(root + path.sep, path.join(root, '..docs', 'x'))).to.equal('..docs/x');
  });
});

describe('findRoot', () => {
  it('picks the deepest watched root that contains the path', () => {
    const roots = [path.resolve('/home/me'), path.resolve('/home/me/docs'), path.resolve('/data')];
    expect(findRoot(roots, path.resolve('/home/me/docs/a.md'))).to.deep.equal({ root: roots[1], relativePath: 'a.md' });
    expect(findRoot(roots, path.resolve('/home/me/x/a.md'))).to.deep.equal({ root: roots[0], relativePath: 'x/a.md' });
    expect(findRoot(roots, path.resolve('/elsewhere/a.md'))).to.equal(null);
  });
});
