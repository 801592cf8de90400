import { expect } from 'chai';
import { StatCache } from '../../../src/actors/watcher/stat-cache.js';

const id = (n: number) => ({ size: n, mtimeMs: 1_700_000_000_000.25 + n, dev: 2049, ino: 2 ** 40 + n });

describe('StatCache', () => {
  it('holds what each file looked like, by its whole path', () => {
    const cache = new StatCache();
    cache.set('/home/me/notes/a.md', id(1));
    cache.set('/home/me/notes/b.md', id(2));
    cache.set('/home/me/a.md', id(3));
    expect(cache.size).to.equal(3);
    expect(cache.get('/home/me/notes/a.md')).to.deep.equal(id(1));
    expect(cache.get('/home/me/a.md')).to.deep.equal(id(3));
    expect(cache.get('/home/me/notes/c.md')).to.equal(undefined);
    expect(cache.has('/home/me/notes')).to.equal(false);
    expect(cache.matches('/home/me/notes/b.md', id(2))).to.equal(true);
    // Any of the four numbers differing is a change; a file not held matches nothing.
    for (const field of ['size', 'mtimeMs', 'dev', 'ino'] as const) {
      expect(cache.matches('/home/me/notes/b.md', { ...id(2), [field]: id(2)[field] + 1 })).to.equal(false);
    }
    expect(cache.matches('/home/me/notes/c.md', id(2))).to.equal(false);
  });

  it('keeps only the four numbers of a fs.Stats-like object, and overwrites a file seen again', () => {
    const cache = new StatCache();
    const stats = { ...id(5), isFile: () => true, atimeMs: 1, ctimeMs: 2 };
    cache.set('/x/f', stats);
    cache.set('/x/f', id(6));
    expect(cache.size).to.equal(1);
    expect(cache.get('/x/f')).to.deep.equal(id(6));
  });

  it("lists a folder's own files, not those below it, as the paths they were held by", () => {
    const cache = new StatCache();
    const files = ['/r/a/one.txt', '/r/a/a-file-name-longer-than-thirteen.txt', '/r/a/b/two.txt', '/r/top.txt', '/file-at-root', '/r/a/naïve 文件.txt'];
    files.forEach((file, i) => cache.set(file, id(i)));
    expect(cache.filesIn('/r/a').sort()).to.deep.equal(['/r/a/a-file-name-longer-than-thirteen.txt', '/r/a/naïve 文件.txt', '/r/a/one.txt']);
    expect(cache.filesIn('/r/a/b')).to.deep.equal(['/r/a/b/two.txt']);
    expect(cache.filesIn('/')).to.deep.equal(['/file-at-root']);
    expect(cache.filesIn('/r/none')).to.deep.equal([]);
    for (const file of files) expect(cache.has(file), file).to.equal(true);
  });

  it('forgets a file, its folder once empty, and reuses its slot', () => {
    const cache = new StatCache();
    cache.set('/r/a/one', id(1));
    cache.set('/r/a/two', id(2));
    expect(cache.delete('/r/a/one')).to.equal(true);
    expect(cache.delete('/r/a/one')).to.equal(false);
    expect(cache.delete('/r/b/none')).to.equal(false);
    expect(cache.has('/r/a/one')).to.equal(false);
    expect(cache.filesIn('/r/a')).to.deep.equal(['/r/a/two']);
    cache.set('/r/c/three', id(3));
    expect(cache.get('/r/c/three')).to.deep.equal(id(3));
    expect(cache.get('/r/a/two')).to.deep.equal(id(2));
    cache.delete('/r/a/two');
    expect(cache.filesIn('/r/a')).to.deep.equal([]);
    expect(cache.size).to.equal(1);
  });

  it('grows past its first columns and keeps every file exact', () => {
    const cache = new StatCache();
    const n = 5_000;
    for (let i = 0; i < n; i++) cache.set(`/t/d${i % 37}/file-number-${i}.txt`, id(i));
    for (let i = 0; i < n; i += 2) cache.delete(`/t/d${i % 37}/file-number-${i}.txt`);
    for (let i = 0; i < n; i += 4) cache.set(`/t/again/file-number-${i}.txt`, id(n + i));
    expect(cache.size).to.equal(n / 2 + n / 4);
    for (let i = 1; i < n; i += 2) expect(cache.get(`/t/d${i % 37}/file-number-${i}.txt`)).to.deep.equal(id(i));
    for (let i = 0; i < n; i += 4) expect(cache.get(`/t/again/file-number-${i}.txt`)).to.deep.equal(id(n + i));
    expect(cache.filesIn('/t/d5').length).to.equal([...Array(n).keys()].filter((i) => i % 37 === 5 && i % 2 === 1).length);
  });

  it('holds a path that does not start with its folder whole (a relative one)', () => {
    const cache = new StatCache();
    cache.set('plain', id(1));
    expect(cache.get('plain')).to.deep.equal(id(1));
    expect(cache.delete('plain')).to.equal(true);
    expect(cache.size).to.equal(0);
  });
});
