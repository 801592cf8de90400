import { expect } from 'chai';
import type os from 'node:os';
import { loadPercentBetween, readCpuTicks } from '../../../src/actors/scheduler/cpu-load.js';

function cpu(user: number, nice: number, sys: number, idle: number, irq: number): os.CpuInfo {
  return { model: 'test', speed: 1000, times: { user, nice, sys, idle, irq } };
}

describe('readCpuTicks', () => {
  it('sums busy and total ticks over all CPUs', () => {
    expect(readCpuTicks([cpu(10, 1, 4, 80, 5), cpu(20, 0, 0, 70, 0)])).to.deep.equal({ busy: 40, total: 190 });
  });

  it('returns null when the platform lists no CPUs', () => {
    expect(readCpuTicks([])).to.equal(null);
  });

  it('reads this machine', () => {
    const ticks = readCpuTicks();
    expect(ticks).to.not.equal(null);
    expect(ticks!.total).to.be.greaterThan(0);
    expect(ticks!.busy).to.be.within(0, ticks!.total);
  });
});

describe('loadPercentBetween', () => {
  it('is the busy share of the ticks that elapsed', () => {
    expect(loadPercentBetween({ busy: 100, total: 1000 }, { busy: 130, total: 1200 })).to.equal(15);
  });

  it('is null when no tick elapsed', () => {
    expect(loadPercentBetween({ busy: 5, total: 10 }, { busy: 5, total: 10 })).to.equal(null);
  });

  it('stays within 0-100 even with odd counters', () => {
    expect(loadPercentBetween({ busy: 0, total: 0 }, { busy: 20, total: 10 })).to.equal(100);
    expect(loadPercentBetween({ busy: 50, total: 100 }, { busy: 40, total: 200 })).to.equal(0);
  });
});
