import { expect } from 'chai';
import { FingerprintSet, fingerprint } from '../../src/lib/fingerprint-set.js';

describe('FingerprintSet', () => {
  it('holds every fingerprint added, across its growth, and no other', () => {
    const set = new FingerprintSet();
    const added = new Set<number>();
    let x = 12345;
    const next = (): number => (x = (Math.imul(x, 1103515245) + 12345) >>> 0);
    for (let i = 0; i < 50_000; i++) {
      const fp = next();
      set.add(fp);
      added.add(fp);
    }
    expect(set.size).to.equal(added.size);
    for (const fp of added) expect(set.has(fp)).to.equal(true);
    let absentFound = 0;
    for (let i = 0; i < 50_000; i++) {
      const fp = next();
      if (!added.has(fp) && set.has(fp)) absentFound++;
    }
    expect(absentFound).to.equal(0);
  });

  it('adds a fingerprint once, and keeps 0 (its empty-slot mark) apart', () => {
    const set = new FingerprintSet();
    set.add(7);
    set.add(7);
    expect(set.size).to.equal(1);
    expect(set.has(0)).to.equal(false);
    set.add(0);
    expect(set.has(0)).to.equal(true);
    // 0 is stored as 1: they share a member (a fingerprint set may answer true for a value never added)
    expect(set.has(1)).to.equal(true);
  });

  it('fingerprints strings with FNV-1a', () => {
    expect(fingerprint('')).to.equal(0x811c9dc5);
    expect(fingerprint('a')).to.equal(0xe40c292c);
    expect(fingerprint('foobar')).to.equal(0xbf9cf968);
  });
});
