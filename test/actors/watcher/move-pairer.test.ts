import { expect } from 'chai';
import { identityKey, MovePairer, type FileIdentity } from '../../../src/actors/watcher/move-pairer.js';

const file = (ino: number, size = 10, mtimeMs = 1000): FileIdentity => ({ dev: 1, ino, size, mtimeMs });

describe('identityKey', () => {
  it('uses the device and inode, and size and mtime where there is no inode', () => {
    expect(identityKey(file(7))).to.equal('1:7');
    // The unlink half's stats may be a write behind: the inode alone decides.
    expect(identityKey(file(7, 10, 2000))).to.equal(identityKey(file(7)));
    expect(identityKey(file(0))).to.equal('~:10:1000');
    expect(identityKey(file(0, 10, 2000))).to.not.equal(identityKey(file(0)));
  });
});

describe('MovePairer', () => {
  const options = { quietMs: 100, maxHoldMs: 1000 };

  it('pairs unlink then add of the same file into a move', () => {
    const p = new MovePairer(options);
    expect(p.unlink(1, '/w/a', file(7), 0)).to.deep.equal([]);
    expect(p.add(2, '/w/b', file(7), 10)).to.deep.equal([{ type: 'move', jobId: 1, path: '/w/a', dest: '/w/b', destJobId: 2 }]);
    expect(p.size).to.equal(0);
    expect(p.release(10_000)).to.deep.equal([]);
  });

  it('pairs add then unlink (chokidar holds unlinks back) into a move', () => {
    const p = new MovePairer(options);
    expect(p.add(1, '/w/b', file(7), 0)).to.deep.equal([]);
    expect(p.unlink(1, '/w/a', file(7), 50)).to.deep.equal([{ type: 'move', jobId: 1, path: '/w/a', dest: '/w/b', destJobId: 1 }]);
  });

  it('releases unpaired halves in arrival order once quiet, not before', () => {
    const p = new MovePairer(options);
    p.unlink(1, '/w/a', file(7), 0);
    p.add(1, '/w/c', file(8), 50);
    p.unlinkDir(1, '/w/dir', 60);
    expect(p.release(100)).to.deep.equal([]); // the last event was 40 ms ago
    expect(p.nextReleaseAt()).to.equal(160);
    expect(p.release(160)).to.deep.equal([
      { type: 'unlink', jobId: 1, path: '/w/a' },
      { type: 'add', jobId: 1, path: '/w/c' },
      { type: 'unlinkDir', jobId: 1, path: '/w/dir' },
    ]);
    expect(p.nextReleaseAt()).to.equal(null);
  });

  it('a steady stream of events does not hold a half longer than maxHoldMs', () => {
    const p = new MovePairer(options);
    p.unlink(1, '/w/a', file(7), 0);
    for (let t = 50; t < 1000; t += 50) p.touch(t);
    expect(p.release(999)).to.deep.equal([]);
    expect(p.release(1000)).to.deep.equal([{ type: 'unlink', jobId: 1, path: '/w/a' }]);
  });

  it('an unlink of an unknown file cannot be paired and leaves at once', () => {
    const p = new MovePairer(options);
    expect(p.unlink(1, '/w/a', null, 0)).to.deep.equal([{ type: 'unlink', jobId: 1, path: '/w/a' }]);
  });

  it('pairs by inode even when the cached stats of the unlinked file are a write behind', () => {
    const p = new MovePairer(options);
    p.unlink(1, '/w/a', file(7, 0, 1000), 0);
    expect(p.add(1, '/w/b', file(7, 10, 1003), 10)).to.deep.equal([{ type: 'move', jobId: 1, path: '/w/a', dest: '/w/b', destJobId: 1 }]);
  });

  it('without inodes, does not pair files of another size or mtime', () => {
    const p = new MovePairer(options);
    p.unlink(1, '/w/a', file(0, 10, 1000), 0);
    expect(p.add(1, '/w/b', file(0, 10, 5000), 10)).to.deep.equal([]);
    expect(p.release(1000)).to.deep.equal([
      { type: 'unlink', jobId: 1, path: '/w/a' },
      { type: 'add', jobId: 1, path: '/w/b' },
    ]);
  });

  it('a file deleted and back at the same path is an add; created and deleted again is an unlink', () => {
    const p = new MovePairer(options);
    p.unlink(1, '/w/a', file(7), 0);
    expect(p.add(1, '/w/a', file(9), 10)).to.deep.equal([{ type: 'add', jobId: 1, path: '/w/a' }]);
    p.add(1, '/w/n', file(11), 20);
    p.unlink(1, '/w/n', file(11), 30);
    expect(p.release(1000)).to.deep.equal([{ type: 'unlink', jobId: 1, path: '/w/n' }]);
  });

  it('a change at a path whose unlink is held drops the unlink (the file is there)', () => {
    const p = new MovePairer(options);
    p.unlink(1, '/w/a', file(7), 0);
    expect(p.change('/w/a', 10)).to.equal(true);
    expect(p.release(1000)).to.deep.equal([]);
  });

  it('a change of a file whose add is held is left to the add (one event for a new file)', () => {
    const p = new MovePairer(options);
    p.add(1, '/w/new', file(7), 0);
    expect(p.change('/w/new', 10)).to.equal(false);
    expect(p.change('/w/other', 10)).to.equal(true);
    expect(p.release(1000)).to.deep.equal([{ type: 'add', jobId: 1, path: '/w/new' }]);
  });

  it('pairs every file of a renamed folder, whatever the order', () => {
    const p = new MovePairer(options);
    const out = [];
    for (let i = 0; i < 100; i++) out.push(...p.unlink(1, `/w/old/${i}`, file(100 + i), i));
    out.push(...p.add(1, '/w/new/5', file(105), 200));
    p.unlinkDir(1, '/w/old', 201);
    for (let i = 99; i >= 0; i--) if (i !== 5) out.push(...p.add(1, `/w/new/${i}`, file(100 + i), 300 - i));
    expect(out).to.have.length(100);
    expect(out.every((e) => e.type === 'move' && e.dest === e.path.replace('/old/', '/new/'))).to.equal(true);
    expect(p.release(10_000)).to.deep.equal([{ type: 'unlinkDir', jobId: 1, path: '/w/old' }]);
  });
});
