import { expect } from 'chai';
import { CallGate, type CallPriority } from '../../src/store/call-gate.js';
import { expectRejection } from '../helpers/assert.js';

/** A call that runs until released, recording when it started. */
function held(gate: CallGate, priority: CallPriority, name: string, started: string[]): { done: Promise<string>; release: () => void } {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const done = gate.run(priority, async () => {
    started.push(name);
    await released;
    return name;
  });
  return { done, release };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('CallGate', () => {
  it('runs one call at a time; a waiting interactive call overtakes waiting background calls, each class in order', async () => {
    const gate = new CallGate();
    const started: string[] = [];
    const write1 = held(gate, 'background', 'write1', started);
    const write2 = held(gate, 'background', 'write2', started);
    const write3 = held(gate, 'background', 'write3', started);
    const search1 = held(gate, 'interactive', 'search1', started);
    const search2 = held(gate, 'interactive', 'search2', started);
    await tick();
    expect(started).to.deep.equal(['write1']);
    expect(gate.waiting).to.deep.equal({ interactive: 2, background: 2 });
    for (const call of [write1, search1, search2, write2, write3]) {
      call.release();
      await call.done;
      await tick();
    }
    expect(started).to.deep.equal(['write1', 'search1', 'search2', 'write2', 'write3']);
    expect(gate.waiting).to.deep.equal({ interactive: 0, background: 0 });
  });

  it('passes a failure to its caller and lets the next call run', async () => {
    const gate = new CallGate();
    const failing = gate.run('background', () => Promise.reject(new Error('disk full')));
    const next = gate.run('background', () => Promise.resolve('after'));
    await expectRejection(failing, /disk full/);
    expect(await next).to.equal('after');
  });
});
