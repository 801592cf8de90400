/**
 * The coalescing rules, through a real queue: the table of docs/queue.md row by row, then a model check
 * that random file activity, processed in whatever order the queue picks (with failures, retries and
 * changes during processing), always leaves the index equal to the disk.
 */
import { expect } from 'chai';
import type { QueueFileEvent, QueueEventOf } from '../../../src/actors/queue/types.js';
import { FakeClock, MemoryPersistence, settle } from './fakes.js';
import { closeHarnesses, startHarness, summary } from './harness.js';
import { runModel } from './model.js';

const a = '/w/a';
const b = '/w/b';
const c = '/w/c';
const index = (path: string): QueueFileEvent => ({ path, action: 'index' });
const del = (path: string): QueueFileEvent => ({ path, action: 'delete' });
const move = (path: string, destPath: string): QueueFileEvent => ({ path, action: 'move', destPath });

/** Each row: events in order (no processing in between) → the waiting items. */
const TABLE: [name: string, events: QueueFileEvent[], result: string[]][] = [
  ['index, index → index', [index(a), index(a)], ['index /w/a']],
  ['index, delete → delete', [index(a), del(a)], ['delete /w/a']],
  ['delete, index → index', [del(a), index(a)], ['index /w/a']],
  ['delete, delete → delete', [del(a), del(a)], ['delete /w/a']],
  ['move a→b alone stays a move', [move(a, b)], ['move /w/a -> /w/b']],
  ['move a→b, move a→b (reported twice) → move a→b', [move(a, b), move(a, b)], ['move /w/a -> /w/b']],
  ['move a→b, delete a → move a→b', [move(a, b), del(a)], ['move /w/a -> /w/b']],
  ['move a→b, index a (new file at a) → index a, index b', [move(a, b), index(a)], ['index /w/a', 'index /w/b']],
  ['move a→b, index b (edited after) → delete a, index b', [move(a, b), index(b)], ['delete /w/a', 'index /w/b']],
  ['move a→b, delete b → delete a, delete b', [move(a, b), del(b)], ['delete /w/a', 'delete /w/b']],
  ['index a, move a→b → delete a, index b', [index(a), move(a, b)], ['delete /w/a', 'index /w/b']],
  ['delete a, move a→b → delete a, index b', [del(a), move(a, b)], ['delete /w/a', 'index /w/b']],
  ['move a→c, move a→b → move a→c, index b', [move(a, c), move(a, b)], ['index /w/b', 'move /w/a -> /w/c']],
  ['move a→b, move b→c (chain) → move a→c, delete b', [move(a, b), move(b, c)], ['delete /w/b', 'move /w/a -> /w/c']],
  ['move a→b, move b→a (back) → delete b', [move(a, b), move(b, a)], ['delete /w/b']],
  ['index b, move a→b (renamed over) → move a→b', [index(b), move(a, b)], ['move /w/a -> /w/b']],
  ['delete b, move a→b → move a→b', [del(b), move(a, b)], ['move /w/a -> /w/b']],
  ['move b→c, move a→b → index c, move a→b', [move(b, c), move(a, b)], ['index /w/c', 'move /w/a -> /w/b']],
  ['move c→b, move a→b → delete c, move a→b', [move(c, b), move(a, b)], ['delete /w/c', 'move /w/a -> /w/b']],
  ['index a, index b, move a→b (atomic save) → delete a, index b', [index(a), index(b), move(a, b)], ['delete /w/a', 'index /w/b']],
];

describe('applyEvent (through the queue)', () => {
  afterEach(closeHarnesses);

  for (const [name, events, result] of TABLE) {
    it(name, async () => {
      const { queue } = await startHarness();
      queue.enqueueMany(events);
      expect(summary(queue.items())).to.deep.equal(result);
      expect(queue.status().total_items).to.equal(result.length);
    });
  }

  it('keeps the id of the item an event merges into and reports the one it supersedes', async () => {
    const { queue, events } = await startHarness();
    queue.enqueue(index(b));
    const bId = queue.items()[0]?.id;
    queue.enqueue(index(b));
    expect(queue.items()[0]?.id).to.equal(bId);
    queue.enqueue(move(a, b));
    const removed = events.filter((e) => e.type === 'queue_item_removed') as QueueEventOf<'queue_item_removed'>[];
    expect(removed.map((e) => [e.item.id, e.cause])).to.deep.equal([[bId, 'superseded']]);
  });

  it('does not restart the cooldown of an item an event only touches on the side', async () => {
    const { queue, clock } = await startHarness({ settings: { cooldownSeconds: 5 } });
    queue.enqueue(move(c, b));
    const due = queue.items()[0]?.cooldown_expires_at;
    await clock.advanceSeconds(2);
    queue.enqueue(move(a, b)); // c's record is dropped, but c saw no event
    const cItem = queue.items().find((item) => item.file_path === c);
    expect(cItem).to.include({ action: 'delete', cooldown_expires_at: due });
  });
});

describe('planReinsert (through retries and restarts)', () => {
  afterEach(closeHarnesses);

  it('a failed move with a newer edit of its destination becomes delete + index', async () => {
    const { queue, clock, processor } = await startHarness({ settings: { cooldownSeconds: 1 } });
    queue.enqueue(move(a, b));
    await clock.advanceSeconds(1);
    queue.enqueue(index(b)); // b edited while the move runs
    processor.openFor(a).finish({ ok: false, retryable: true, reason: 'busy' });
    await settle();
    expect(summary(queue.items())).to.deep.equal(['delete /w/a', 'index /w/b']);
    expect(queue.items().find((i) => i.file_path === a)?.retry_count).to.equal(1);
  });

  it('a failed index whose file was then moved away degrades the newer move', async () => {
    const { queue, clock, processor } = await startHarness({ settings: { cooldownSeconds: 1 } });
    queue.enqueue(index(a));
    await clock.advanceSeconds(1);
    queue.enqueue(move(a, b));
    processor.openFor(a).finish({ ok: false, retryable: true, reason: 'busy' });
    await settle();
    expect(summary(queue.items())).to.deep.equal(['delete /w/a', 'index /w/b']);
  });

  it('a failed move with nothing newer on its paths is retried as a move', async () => {
    const { queue, clock, processor } = await startHarness({ settings: { cooldownSeconds: 1 } });
    queue.enqueue(move(a, b));
    await clock.advanceSeconds(1);
    processor.openFor(a).finish({ ok: false, retryable: true, reason: 'busy' });
    await settle();
    expect(summary(queue.items())).to.deep.equal(['move /w/a -> /w/b']);
  });

  it('on restart, an interrupted item yields to a newer one for the same path', async () => {
    const persistence = new MemoryPersistence();
    const clock = new FakeClock();
    const first = await startHarness({ persistence, clock, settings: { cooldownSeconds: 1 } });
    first.queue.enqueue(index(a));
    await clock.advanceSeconds(1);
    first.queue.enqueue(del(a)); // waits behind the processing index
    await first.queue.flush();
    const deleteId = first.queue.items().find((i) => i.action === 'delete')?.id;

    const second = await startHarness({ persistence, clock, settings: { cooldownSeconds: 1 } });
    expect(summary(second.queue.items())).to.deep.equal(['delete /w/a']);
    expect(second.queue.items()[0]?.id).to.equal(deleteId);
  });
});

describe('coalescing model check', () => {
  afterEach(closeHarnesses);

  it('random activity on five paths always ends with the index equal to the disk (400 seeded runs)', async () => {
    for (let seed = 1; seed <= 400; seed++) {
      const outcome = await runModel(seed, 40);
      expect(outcome.violations, `seed ${seed}:\n${outcome.log.join('\n')}`).to.deep.equal([]);
      expect(outcome.index, `seed ${seed}:\n${outcome.log.join('\n')}`).to.deep.equal(outcome.disk);
    }
  });
});
