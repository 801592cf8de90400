import { expect } from 'chai';
import { formatDuration, formatSize } from '../../src/lib/format.js';

describe('formatDuration', () => {
  it('reads as hours and minutes, minutes and seconds, or seconds', () => {
    expect(formatDuration(42)).to.equal('42s');
    expect(formatDuration(338)).to.equal('5m 38s');
    expect(formatDuration(3720)).to.equal('1h 02m');
    expect(formatDuration(-3)).to.equal('0s');
  });
});

describe('formatSize', () => {
  it('reads as bytes, then KB, MB, GB in powers of 1024, with one decimal below ten', () => {
    expect(formatSize(812)).to.equal('812 B');
    expect(formatSize(4300)).to.equal('4.2 KB');
    expect(formatSize(17 * 1024 * 1024)).to.equal('17 MB');
    expect(formatSize(3 * 1024 ** 3)).to.equal('3.0 GB');
  });
});
