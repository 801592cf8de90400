import { expect } from 'chai';
import { EventBus } from '../../src/events/bus.js';
import type { AnyBusEvent } from '../../src/events/types.js';

describe('EventBus', () => {
  it('gives events monotonically increasing ids and delivers them to subscribers', () => {
    const bus = new EventBus();
    const seen: AnyBusEvent[] = [];
    bus.subscribe((e) => seen.push(e));
    const a = bus.publish('service_stopping', { reason: 'a' });
    const b = bus.publish('service_stopping', { reason: 'b' });
    expect([a.id, b.id]).to.deep.equal([1, 2]);
    expect(seen.map((e) => e.id)).to.deep.equal([1, 2]);
    expect(bus.lastId).to.equal(2);
  });

  it('stops delivering after unsubscribe, and isolates a throwing subscriber', () => {
    const bus = new EventBus();
    const seen: number[] = [];
    bus.subscribe(() => {
      throw new Error('faulty');
    });
    const off = bus.subscribe((e) => seen.push(e.id));
    bus.publish('service_stopping', { reason: 'x' });
    off();
    bus.publish('service_stopping', { reason: 'y' });
    expect(seen).to.deep.equal([1]);
  });

  it('replays events after a given id from its buffer', () => {
    const bus = new EventBus({ replayCapacity: 10 });
    for (let i = 0; i < 5; i++) bus.publish('service_stopping', { reason: String(i) });
    const { events, complete } = bus.since(2);
    expect(events.map((e) => e.id)).to.deep.equal([3, 4, 5]);
    expect(complete).to.equal(true);
    expect(bus.since(5)).to.deep.equal({ events: [], complete: true });
  });

  it('says when events were lost because the buffer wrapped', () => {
    const bus = new EventBus({ replayCapacity: 3 });
    for (let i = 0; i < 7; i++) bus.publish('service_stopping', { reason: String(i) });
    const lost = bus.since(2);
    expect(lost.events.map((e) => e.id)).to.deep.equal([5, 6, 7]);
    expect(lost.complete).to.equal(false);
    const kept = bus.since(4);
    expect(kept.events.map((e) => e.id)).to.deep.equal([5, 6, 7]);
    expect(kept.complete).to.equal(true);
  });

  it('rejects a bad capacity, naming the option', () => {
    expect(() => new EventBus({ replayCapacity: 0 })).to.throw(/replayCapacity/);
  });
});
