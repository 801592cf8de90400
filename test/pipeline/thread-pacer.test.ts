import { expect } from 'chai';
import { ThreadPacer } from '../../src/pipeline/thread-pacer.js';

/** A pacer on a hand-moved clock, and a way to hold counts for a span of it. */
function paced(max: number, windowMs = 1_000, cores = 64) {
  let now = 0;
  let cpu = 0;
  /** The process's CPU: a core for each running task, and `others` cores of its other threads (the store). */
  let running = 0;
  let others = 0;
  const clock = () => now;
  /** CPU time other programs took. */
  let busyElsewhere = 0;
  // The machine: `cores` cores, idle but for this process's CPU and the others'.
  const pacer = new ThreadPacer({ max, windowMs, now: clock, cores, cpuMs: () => cpu, idleMs: () => now * cores - cpu - busyElsewhere });
  const observe = (r: number, waiting: number) => {
    running = r;
    return pacer.observe(r, waiting);
  };
  /** Holds `running` and `waiting` for `ms`, then lets the pacer see the time pass; answers the limit. */
  const hold = (r: number, waiting: number, ms: number, otherCores = 0): number => {
    observe(r, waiting);
    others = otherCores;
    now += ms;
    cpu += (running + others) * ms;
    return observe(r, waiting);
  };
  /** One window in which `busy` threads' worth ran, tasks waiting (all threads running) `waitedShare` of it. */
  const windowOf = (busy: number, waitedShare: number): number => {
    const threads = Math.ceil(busy);
    const runMs = threads === 0 ? 0 : (busy / threads) * windowMs;
    const waitMs = Math.min(runMs, waitedShare * windowMs);
    hold(threads, 1, waitMs);
    hold(threads, 0, runMs - waitMs);
    return hold(0, 0, windowMs - runMs);
  };
  return { pacer, hold, windowOf, elsewhere: (ms: number) => (busyElsewhere += ms), advance: (ms: number) => ((cpu += (running + others) * ms), (now += ms)) };
}

describe('ThreadPacer', () => {
  it('starts with one thread and adds one after two saturated windows, then one a saturated window, up to the maximum', () => {
    const { pacer, hold } = paced(4);
    expect(pacer.limit).to.equal(1);
    expect(hold(1, 5, 1_000)).to.equal(1); // one saturated window: a first burst, not yet evidence
    expect(hold(1, 5, 1_000)).to.equal(2);
    expect(hold(2, 5, 1_000)).to.equal(3);
    expect(hold(3, 5, 1_000)).to.equal(4);
    expect(hold(4, 5, 5_000)).to.equal(4); // never past the maximum
  });

  it("does not grow for a run's first burst, nor while the threads are busy and nothing waits", () => {
    const { hold } = paced(4);
    expect(hold(1, 5, 1_000)).to.equal(1);
    expect(hold(1, 0, 1_000)).to.equal(1); // the store took over: the thread busy, nothing waiting
    expect(hold(1, 0, 10_000)).to.equal(1);
    // Tasks waited, but the thread ran only 80 % of the window: a closed loop paced by the store, not by threads.
    const { windowOf } = paced(4);
    for (let i = 0; i < 10; i++) expect(windowOf(0.8, 0.5)).to.equal(1);
  });

  it('gives a thread back after three windows whose work one fewer would have done at most 80 % busy, down to one', () => {
    const { pacer, hold, windowOf } = paced(3);
    hold(1, 5, 1_000);
    hold(1, 5, 1_000);
    hold(2, 5, 1_000);
    expect(pacer.limit).to.equal(3);
    // Paced by the store: 1.5 threads busy of 3, nothing waiting (two would be 75 % busy).
    expect(windowOf(1.5, 0)).to.equal(3);
    expect(windowOf(1.5, 0)).to.equal(3);
    expect(windowOf(1.5, 0)).to.equal(2);
    // At two, 1.5 busy would be 150 % of one: kept, however long.
    for (let i = 0; i < 6; i++) expect(windowOf(1.5, 0)).to.equal(2);
    // 0.85 busy would be 85 % of one: kept too (a store-paced run's thread and a bit more).
    for (let i = 0; i < 6; i++) expect(windowOf(0.85, 0)).to.equal(2);
    // 0.75: one more goes after three windows.
    expect(windowOf(0.75, 0)).to.equal(2);
    expect(windowOf(0.75, 0)).to.equal(2);
    expect(windowOf(0.75, 0)).to.equal(1);
    for (let i = 0; i < 5; i++) expect(windowOf(0, 0)).to.equal(1);
  });

  it('does not grow while the process leaves no core free: another thread would add memory and no speed', () => {
    // Two cores: the one thread saturated, tasks waiting, and the store's thread busy on the other core.
    const { pacer, hold } = paced(3, 1_000, 2);
    for (let i = 0; i < 6; i++) hold(1, 5, 1_000, 1);
    expect(pacer.limit).to.equal(1);
    // The store on half a core: a core and a half in use of two leaves half free, so it grows.
    hold(1, 5, 1_000, 0.5);
    expect(hold(1, 5, 1_000, 0.5)).to.equal(2);
  });

  it("does not grow while other programs keep the machine's cores busy", () => {
    const { pacer, hold, elsewhere } = paced(3, 1_000, 2);
    // One thread saturated, a core of this process's free, but a build takes the other core and a bit more.
    for (let i = 0; i < 6; i++) {
      elsewhere(1_000 * 0.6);
      hold(1, 5, 1_000);
    }
    expect(pacer.limit).to.equal(1);
    // The build ends: the machine's idle core lets it grow.
    hold(1, 5, 1_000);
    expect(hold(1, 5, 1_000)).to.equal(2);
  });

  it("grows on the process's own free core when the machine's idle time cannot be read", () => {
    let now = 0;
    // The process on one core of two; os.cpus() empty.
    const pacer = new ThreadPacer({ max: 2, windowMs: 1_000, cores: 2, now: () => now, cpuMs: () => now, idleMs: () => Number.NaN });
    for (const [running, waiting] of [[1, 5], [1, 5], [1, 5]] as const) {
      pacer.observe(running, waiting);
      now += 1_000;
    }
    expect(pacer.observe(1, 5)).to.equal(2);
  });

  it('gives a thread back when the cores are all busy and the threads are not saturated: its core goes to the store', () => {
    const { pacer, hold } = paced(3, 1_000, 2);
    hold(1, 5, 1_000);
    expect(hold(1, 5, 1_000)).to.equal(2);
    // Two threads 80 % busy (their tasks partly waiting for a core) beside a store on the rest of both cores.
    const storeBound = () => {
      hold(2, 0, 600, 0.4);
      hold(1, 0, 400, 0.4);
      return pacer.limit;
    };
    expect(storeBound()).to.equal(2);
    expect(storeBound()).to.equal(2);
    expect(storeBound()).to.equal(1);
    // A transformer: both threads busy and tasks waiting, every core in use: saturated, so it keeps both.
    const { pacer: tx, hold: txHold } = paced(3, 1_000, 2);
    txHold(1, 5, 1_000);
    txHold(1, 5, 1_000);
    for (let i = 0; i < 6; i++) txHold(2, 5, 1_000, 0.2);
    expect(tx.limit).to.equal(2);
  });

  it('a long task holding the only thread while others wait grows the limit on its own (the timer ticks, no count changes)', () => {
    const { pacer, advance } = paced(2);
    pacer.observe(1, 3);
    advance(1_000);
    expect(pacer.observe(1, 3)).to.equal(1);
    advance(1_000);
    expect(pacer.observe(1, 3)).to.equal(2);
  });

  it('closes every window a quiet spell spans, and a long one leaves one thread', () => {
    const { pacer, hold, advance } = paced(4);
    for (let i = 0; i < 4; i++) hold(pacer.limit, 5, 1_000);
    expect(pacer.limit).to.equal(4);
    pacer.observe(0, 0);
    advance(3_000); // three idle windows: one thread less
    expect(pacer.observe(0, 0)).to.equal(3);
    advance(3_600_000);
    expect(pacer.observe(0, 0)).to.equal(1);
  });

  it('keeps within a new maximum', () => {
    const { pacer, hold } = paced(4);
    for (let i = 0; i < 4; i++) hold(pacer.limit, 5, 1_000);
    expect(pacer.limit).to.equal(4);
    pacer.setMax(2);
    expect(pacer.limit).to.equal(2);
    expect(hold(2, 5, 3_000)).to.equal(2);
    expect(() => pacer.setMax(0)).to.throw(TypeError);
  });
});
