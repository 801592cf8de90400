import { expect } from 'chai';
import { createCpuIdleTracker, DEFAULT_IDLE_THRESHOLD_PERCENT } from '../../../src/actors/scheduler/cpu-idle.js';

/** Feeds consecutive windows of `stepMs` each, starting at `start`, with the given loads. */
function feed(tracker: ReturnType<typeof createCpuIdleTracker>, loads: number[], stepMs = 5000, start = 0): number {
  let at = start;
  for (const loadPercent of loads) {
    tracker.record({ from: at, to: at + stepMs, loadPercent });
    at += stepMs;
  }
  return at;
}

describe('createCpuIdleTracker', () => {
  it('knows nothing before the first window', () => {
    expect(createCpuIdleTracker().idleSeconds()).to.equal(null);
  });

  it('uses a 10 % threshold by default', () => {
    expect(DEFAULT_IDLE_THRESHOLD_PERCENT).to.equal(10);
    expect(createCpuIdleTracker().thresholdPercent).to.equal(10);
  });

  it('counts the seconds of consecutive quiet windows', () => {
    const tracker = createCpuIdleTracker();
    feed(tracker, [2, 3, 9.9, 0]);
    expect(tracker.idleSeconds()).to.equal(20);
  });

  it('resets to 0 on a window at or above the threshold, then counts again', () => {
    const tracker = createCpuIdleTracker();
    const end = feed(tracker, [1, 1, 1]);
    expect(tracker.idleSeconds()).to.equal(15);
    feed(tracker, [10], 5000, end);
    expect(tracker.idleSeconds()).to.equal(0);
    feed(tracker, [4, 4], 5000, end + 5000);
    expect(tracker.idleSeconds()).to.equal(10);
  });

  it('is 0 while busy', () => {
    const tracker = createCpuIdleTracker();
    feed(tracker, [80, 95]);
    expect(tracker.idleSeconds()).to.equal(0);
  });

  it('restarts the streak after a hole in the samples', () => {
    const tracker = createCpuIdleTracker();
    feed(tracker, [1, 1]); // 0..10 s
    tracker.record({ from: 60_000, to: 65_000, loadPercent: 1 }); // nothing known about 10..60 s
    expect(tracker.idleSeconds()).to.equal(5);
  });

  it('honours a configured threshold', () => {
    const tracker = createCpuIdleTracker({ thresholdPercent: 25 });
    feed(tracker, [20, 24]);
    expect(tracker.idleSeconds()).to.equal(10);
    feed(tracker, [25], 5000, 10_000);
    expect(tracker.idleSeconds()).to.equal(0);
  });

  it('refuses windows out of order and bad thresholds', () => {
    const tracker = createCpuIdleTracker();
    tracker.record({ from: 1000, to: 2000, loadPercent: 1 });
    expect(() => tracker.record({ from: 1500, to: 2500, loadPercent: 1 })).to.throw(RangeError);
    expect(() => tracker.record({ from: 3000, to: 2900, loadPercent: 1 })).to.throw(RangeError);
    expect(() => createCpuIdleTracker({ thresholdPercent: 0 })).to.throw(RangeError, /thresholdPercent/);
    expect(() => createCpuIdleTracker({ thresholdPercent: 101 })).to.throw(RangeError, /thresholdPercent/);
  });
});
