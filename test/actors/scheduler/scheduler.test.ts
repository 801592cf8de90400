import { expect } from 'chai';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Evaluation } from '../../../src/actors/scheduler/evaluate.js';
import { available, type ReadingsSnapshot } from '../../../src/actors/scheduler/readings.js';
import { createScheduler, systemClock, type SchedulerClock } from '../../../src/actors/scheduler/scheduler.js';
import type { SchedulerConfig } from '../../../src/settings/scheduler-schema.js';
import { FakeProvider, settle, snapshot } from './fixtures.js';

interface Timer {
  fn: () => void;
  ms: number;
  cancelled: boolean;
  fired: boolean;
}

/** A clock whose time and timers move only when the test says so. */
class ManualClock implements SchedulerClock {
  timers: Timer[] = [];
  constructor(public time: Date) {}
  now(): Date {
    return new Date(this.time);
  }
  setTimer(fn: () => void, ms: number): () => void {
    const timer: Timer = { fn, ms, cancelled: false, fired: false };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  }
  pending(): Timer[] {
    return this.timers.filter((t) => !t.cancelled && !t.fired);
  }
  /** Fires the one pending timer, advancing time by its delay, and lets the check it starts finish. */
  async fire(): Promise<void> {
    const pending = this.pending();
    expect(pending, 'exactly one pending timer').to.have.length(1);
    const timer = pending[0]!;
    this.time = new Date(this.time.getTime() + timer.ms);
    timer.fired = true;
    timer.fn();
    await settle();
  }
}

const cpuBelow30: SchedulerConfig = {
  enabled: true,
  combine_mode: 'ALL',
  check_interval_seconds: 60,
  unavailable_policy: 'fail',
  rules: [{ rule: 'cpu_percent', operator: '<=', value: 30, enabled: true }],
};
const busy = (): ReadingsSnapshot => snapshot({ cpu_percent: available(90) });
const quiet = (): ReadingsSnapshot => snapshot({ cpu_percent: available(10) });

function setup(config: SchedulerConfig, readings: ReadingsSnapshot) {
  const provider = new FakeProvider(readings);
  const clock = new ManualClock(new Date(2026, 10, 22, 12, 0));
  const decisions: Array<{ paused: boolean; evaluation: Evaluation }> = [];
  const errors: unknown[] = [];
  const scheduler = createScheduler({
    provider,
    config,
    clock,
    onDecision: (paused, evaluation) => decisions.push({ paused, evaluation }),
    onError: (error) => errors.push(error),
  });
  return { provider, clock, decisions, errors, scheduler };
}

describe('createScheduler', () => {
  it('checks at once on start, then every check_interval_seconds', async () => {
    const { provider, clock, scheduler } = setup(cpuBelow30, quiet());
    scheduler.start();
    await settle();
    expect(provider.reads).to.equal(1);
    expect(clock.pending().map((t) => t.ms)).to.deep.equal([60_000]);
    await clock.fire();
    await clock.fire();
    expect(provider.reads).to.equal(3);
    expect(scheduler.current().evaluation?.checked_at).to.equal(new Date(2026, 10, 22, 12, 2).toISOString());
  });

  it('signals transitions only: pause once, release once', async () => {
    const { provider, clock, decisions, scheduler } = setup(cpuBelow30, busy());
    scheduler.start();
    await settle();
    await clock.fire(); // still busy: no new signal
    expect(decisions.map((d) => d.paused)).to.deep.equal([true]);
    expect(decisions[0]?.evaluation.conditions_met).to.equal(false);
    expect(scheduler.current().paused).to.equal(true);

    provider.current = quiet();
    await clock.fire();
    await clock.fire();
    expect(decisions.map((d) => d.paused)).to.deep.equal([true, false]);
    expect(scheduler.current().paused).to.equal(false);

    provider.current = busy();
    await clock.fire();
    expect(decisions.map((d) => d.paused)).to.deep.equal([true, false, true]);
  });

  it('says nothing when conditions are met from the start (the queue starts running)', async () => {
    const { clock, decisions, scheduler } = setup(cpuBelow30, quiet());
    scheduler.start();
    await settle();
    await clock.fire();
    expect(decisions).to.deep.equal([]);
  });

  it('pauses and resumes on a time window as the clock moves', async () => {
    const night: SchedulerConfig = {
      ...cpuBelow30,
      check_interval_seconds: 3600,
      rules: [{ rule: 'time_window', operator: 'in', value: '22:00-06:00', enabled: true }],
    };
    const { clock, decisions, scheduler } = setup(night, quiet());
    clock.time = new Date(2026, 10, 22, 20, 30);
    scheduler.start();
    await settle(); // 20:30: outside → pause
    await clock.fire(); // 21:30: still outside
    await clock.fire(); // 22:30: inside → resume
    for (let i = 0; i < 8; i += 1) await clock.fire(); // 06:30 next day: outside → pause
    expect(decisions.map((d) => [d.paused, d.evaluation.rules[0]?.reading])).to.deep.equal([
      [true, '20:30'],
      [false, '22:30'],
      [true, '06:30'],
    ]);
  });

  it('applies a new interval at once, leaving exactly one timer', async () => {
    const { provider, clock, scheduler } = setup({ ...cpuBelow30, check_interval_seconds: 3600 }, quiet());
    scheduler.start();
    await settle();
    expect(clock.pending().map((t) => t.ms)).to.deep.equal([3_600_000]);
    const evaluation = await scheduler.update({ ...cpuBelow30, check_interval_seconds: 5 });
    await settle();
    expect(evaluation.conditions_met).to.equal(true);
    expect(provider.reads).to.equal(2); // update checks immediately
    expect(clock.pending().map((t) => t.ms)).to.deep.equal([5_000]);
    await clock.fire();
    expect(provider.reads).to.equal(3);
    expect(clock.pending().map((t) => t.ms)).to.deep.equal([5_000]);
  });

  it('applies new rules at once and signals the resulting transition', async () => {
    const { decisions, scheduler } = setup(cpuBelow30, busy());
    scheduler.start();
    await settle();
    expect(decisions.map((d) => d.paused)).to.deep.equal([true]);
    await scheduler.update({ ...cpuBelow30, rules: [{ rule: 'cpu_percent', operator: '<=', value: 95, enabled: true }] });
    expect(decisions.map((d) => d.paused)).to.deep.equal([true, false]);
  });

  it('never pauses while disabled, and releases its pause when disabled', async () => {
    const { clock, decisions, scheduler } = setup({ ...cpuBelow30, enabled: false }, busy());
    scheduler.start();
    await settle();
    expect(decisions).to.deep.equal([]);
    expect(clock.pending(), 'a disabled scheduler does not poll').to.deep.equal([]);
    expect(scheduler.current().evaluation?.conditions_met).to.equal(false);

    await scheduler.update(cpuBelow30); // enabled, rules fail
    await settle();
    expect(decisions.map((d) => d.paused)).to.deep.equal([true]);
    expect(clock.pending()).to.have.length(1);

    await scheduler.update({ ...cpuBelow30, enabled: false });
    await settle();
    expect(decisions.map((d) => d.paused)).to.deep.equal([true, false]);
    expect(scheduler.current().paused).to.equal(false);
    expect(clock.pending()).to.deep.equal([]);
  });

  it('evaluates on checkNow without signalling while not started', async () => {
    const { decisions, scheduler } = setup(cpuBelow30, busy());
    const evaluation = await scheduler.checkNow();
    expect(evaluation.conditions_met).to.equal(false);
    expect(evaluation.rules[0]).to.include({ reading: 90, passes: false });
    expect(decisions).to.deep.equal([]);
    expect(scheduler.current()).to.include({ paused: false, running: false, evaluation });
  });

  it('stops polling on stop and does not signal a check that finishes after it', async () => {
    let release: (value: ReadingsSnapshot) => void = () => undefined;
    const { clock, decisions, scheduler, provider } = setup(cpuBelow30, quiet());
    scheduler.start();
    await settle();
    provider.read = () => new Promise<ReadingsSnapshot>((resolve) => (release = resolve));
    const pending = clock.pending()[0]!;
    pending.fired = true;
    pending.fn();
    await settle(); // a check is now waiting on the provider
    const stopped = scheduler.stop();
    release(busy());
    await stopped;
    await settle();
    expect(decisions).to.deep.equal([]);
    expect(clock.pending()).to.deep.equal([]);
    expect(scheduler.current().running).to.equal(false);
  });

  it('evaluates with the configuration current when the readings arrive', async () => {
    let release: (value: ReadingsSnapshot) => void = () => undefined;
    const { scheduler, provider } = setup(cpuBelow30, busy());
    provider.read = () => new Promise<ReadingsSnapshot>((resolve) => (release = resolve));
    const inFlight = scheduler.checkNow();
    await settle();
    const updated = scheduler.update({ ...cpuBelow30, combine_mode: 'ANY', rules: [] });
    provider.read = async () => busy();
    release(busy());
    expect((await inFlight).rules).to.deep.equal([]);
    expect((await updated).combine_mode).to.equal('ANY');
  });

  it('reports a failing provider through onError and keeps polling', async () => {
    const { clock, errors, scheduler, provider } = setup(cpuBelow30, quiet());
    provider.read = async () => {
      throw new Error('provider bug');
    };
    scheduler.start();
    await settle();
    expect(errors.map((e) => (e as Error).message)).to.deep.equal(['provider bug']);
    expect(clock.pending()).to.have.length(1);
    provider.read = async () => quiet();
    await clock.fire();
    expect(scheduler.current().evaluation?.conditions_met).to.equal(true);
  });

  it('reports a throwing onDecision through onError and still records the decision', async () => {
    const errors: unknown[] = [];
    const scheduler = createScheduler({
      provider: new FakeProvider(busy()),
      config: cpuBelow30,
      clock: new ManualClock(new Date()),
      onDecision: () => {
        throw new Error('listener bug');
      },
      onError: (error) => errors.push(error),
    });
    scheduler.start();
    await settle();
    expect(errors.map((e) => (e as Error).message)).to.deep.equal(['listener bug']);
    expect(scheduler.current().paused).to.equal(true);
  });

  it('refuses an invalid configuration, naming the problem', () => {
    const bad = { ...cpuBelow30, rules: [{ rule: 'cpu_percent', operator: '==', value: 5, enabled: true }] } as unknown as SchedulerConfig;
    expect(() => createScheduler({ provider: new FakeProvider(), config: bad, onDecision: () => undefined })).to.throw(
      TypeError,
      "invalid scheduler config: rules[0] (cpu_percent): operator '==' is not allowed; allowed: <=, >=",
    );
    const { scheduler } = setup(cpuBelow30, quiet());
    expect(() => scheduler.update({ ...cpuBelow30, check_interval_seconds: 1 })).to.throw(TypeError, /check_interval_seconds/);
  });
});

describe('systemClock', () => {
  it('runs a timer and can cancel one', async () => {
    let ran = 0;
    await new Promise<void>((resolve) => {
      systemClock.setTimer(() => {
        ran += 1;
        resolve();
      }, 1);
    });
    const cancel = systemClock.setTimer(() => (ran += 100), 1);
    cancel();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ran).to.equal(1);
  });

  it('never keeps the process alive: a started scheduler with the real provider lets Node exit', async function () {
    this.timeout(20_000);
    const index = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../src/actors/scheduler/index.js');
    const script = `
      import { createScheduler, createSystemReadingsProvider } from ${JSON.stringify(index)};
      const scheduler = createScheduler({
        provider: createSystemReadingsProvider(),
        config: { enabled: true, combine_mode: 'ALL', check_interval_seconds: 5, unavailable_policy: 'fail',
                  rules: [{ rule: 'cpu_percent', operator: '<=', value: 100 }] },
        onDecision: () => {},
      });
      scheduler.start();
      const evaluation = await scheduler.checkNow();
      console.log(JSON.stringify({ met: evaluation.conditions_met }));
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('exit', (c, s) => resolve([c, s])),
    );
    clearTimeout(killer);
    expect(signal, `the child was still alive (stderr: ${err})`).to.equal(null);
    expect(code, err).to.equal(0);
    expect(JSON.parse(out.trim())).to.deep.equal({ met: true });
  });
});
