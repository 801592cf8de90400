import { expect } from 'chai';
import { IdleTimer } from '../../src/lib/idle-timer.js';
import { eventually } from '../helpers/assert.js';

describe('IdleTimer', () => {
  it('calls back once the countdown runs out, and each arm() restarts it', async () => {
    let idle = 0;
    const timer = new IdleTimer(30, () => idle++);
    timer.arm();
    timer.arm();
    expect(timer.armed).to.equal(true);
    await eventually(() => expect(idle).to.equal(1));
    expect(timer.armed).to.equal(false);
    timer.arm();
    await eventually(() => expect(idle).to.equal(2));
  });

  it('never calls back once cancelled', async () => {
    let idle = 0;
    const timer = new IdleTimer(10, () => idle++);
    timer.arm();
    timer.cancel();
    expect(timer.armed).to.equal(false);
    // A second timer with the same delay armed after it has fired: the cancelled one would have too.
    let later = 0;
    const witness = new IdleTimer(20, () => later++);
    witness.arm();
    await eventually(() => expect(later).to.equal(1));
    expect(idle).to.equal(0);
  });
});
