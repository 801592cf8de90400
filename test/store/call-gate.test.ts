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
    const search1 = held(gate, 'interactive', 'search1', started);
    await tick();
    // Both arrived in one turn, as messages sent while the store's thread was blocked do: the search goes first even
    // though the write came first and the gate was free (chosen at once, the write would have run to its end first).
    expect(started).to.deep.equal(['search1']);
    const write2 = held(gate, 'background', 'write2', started);
    const write3 = held(gate, 'background', 'write3', started);
    const search2 = held(gate, 'interactive', 'search2', started);
    expect(gate.waiting).to.deep.equal({ interactive: 1, background: 3 });
    for (const call of [search1, search2, write1, write2, write3]) {
      call.release();
      await call.done;
      await tick();
    }
    expect(started).to.deep.equal(['search1', 'search2', 'write1', 'write2', 'write3']);
    expect(gate.waiting).to.deep.equal({ interactive: 0, background: 0 });
  });

  it('never runs two calls at once, however they arrive', async () => {
    const gate = new CallGate();
    let running = 0;
    let most = 0;
    const calls = Array.from({ length: 40 }, (_, i) =>
      gate.run(i % 3 === 0 ? 'interactive' : 'background', async () => {
        most = Math.max(most, ++running);
        await (i % 2 === 0 ? tick() : Promise.resolve());
        running--;
        return i;
      }),
    );
    expect(await Promise.all(calls)).to.have.length(40);
    expect(most).to.equal(1);
    expect(gate.waiting).to.deep.equal({ interactive: 0, background: 0 });
  });

  it("keeps background calls out a moment after an interactive call, for the same search's next call", async () => {
    // A hold far longer than the two event-loop turns below take, so the order cannot depend on the machine's speed.
    const gate = new CallGate(3_000);
    const started: string[] = [];
    const keyword = held(gate, 'interactive', 'keyword', started);
    await tick();
    const write = held(gate, 'background', 'write', started);
    keyword.release();
    await keyword.done;
    await tick();
    await tick();
    expect(started).to.deep.equal(['keyword']); // the write waits: the search may send another call
    const describe = held(gate, 'interactive', 'describe', started);
    await tick();
    expect(started).to.deep.equal(['keyword', 'describe']); // the follow-up goes at once, the gate was held for it
    describe.release();
    write.release();
    await describe.done;
    expect(await write.done).to.equal('write'); // and once no follow-up came, the write runs
    expect(started).to.deep.equal(['keyword', 'describe', 'write']);
  });

  it('passes a failure to its caller and lets the next call run', async () => {
    const gate = new CallGate();
    const failing = gate.run('background', () => Promise.reject(new Error('disk full')));
    const next = gate.run('background', () => Promise.resolve('after'));
    await expectRejection(failing, /disk full/);
    expect(await next).to.equal('after');
  });
});
