import { expect } from 'chai';
import { Limiter } from '../../src/lib/limiter.js';

describe('Limiter', () => {
  it('hands out slots up to its limit, then in the order asked as slots are released', async () => {
    const limiter = new Limiter(1);
    expect(await limiter.acquire()).to.equal(true);
    const order: string[] = [];
    const second = limiter.acquire().then((ok) => order.push(`second ${ok}`));
    const third = limiter.acquire().then((ok) => order.push(`third ${ok}`));
    expect(limiter.waiting).to.equal(2);
    limiter.release();
    await second;
    limiter.release();
    await third;
    expect(order).to.deep.equal(['second true', 'third true']);
  });

  it('lets a waiter whose signal aborts leave the line at once, taking no slot, and the next one gets the slot', async () => {
    const limiter = new Limiter(1);
    await limiter.acquire();
    const controller = new AbortController();
    const cancelled = limiter.acquire(controller.signal);
    const next = limiter.acquire();
    controller.abort();
    expect(await cancelled).to.equal(false);
    expect(limiter.waiting).to.equal(1);
    limiter.release();
    expect(await next).to.equal(true);
    // The slot went to `next` alone: one more caller waits.
    let later = false;
    void limiter.acquire().then(() => (later = true));
    await Promise.resolve();
    expect(later).to.equal(false);
    expect(limiter.waiting).to.equal(1);
  });

  it('refuses at once with a signal already aborted, even with a free slot', async () => {
    const limiter = new Limiter(2);
    expect(await limiter.acquire(AbortSignal.abort())).to.equal(false);
    expect(await limiter.acquire()).to.equal(true);
    expect(await limiter.acquire()).to.equal(true);
    expect(limiter.waiting).to.equal(0);
  });

  it('an abort after the slot was given changes nothing', async () => {
    const limiter = new Limiter(1);
    await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    limiter.release();
    expect(await waiting).to.equal(true);
    controller.abort();
    let other = false;
    void limiter.acquire().then(() => (other = true));
    await Promise.resolve();
    expect(other).to.equal(false);
  });
});
