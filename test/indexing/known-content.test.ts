/**
 * indexing/known-content.ts: a new file's duplicate lookup is skipped when its content is certainly new, and
 * identical content is still found, within a process and after a restart (the store's list), on both engines.
 */
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import type { AnyBusEvent } from '../../src/events/types.js';
import { CONTENT_KEY_CHARS, KnownContent } from '../../src/indexing/known-content.js';
import { forEachEngine } from '../helpers/engines.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { tempTree, type TempTree } from '../helpers/files.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

describe('KnownContent', () => {
  it('reads the list once, page after page, and answers from it and from what was added', async () => {
    const asked: number[] = [];
    const pages = new Map([
      [0, { keys: [sha256('one').slice(0, CONTENT_KEY_CHARS)], next: 7 }],
      [7, { keys: [sha256('four').slice(0, CONTENT_KEY_CHARS)], next: null }],
    ]);
    const known = new KnownContent(async (after) => {
      asked.push(after);
      return pages.get(after)!;
    });
    known.add(sha256('two'));
    expect(await known.mayHold(sha256('one'))).to.equal(true);
    expect(await known.mayHold(sha256('two'))).to.equal(true);
    expect(await known.mayHold(sha256('four')), 'a key of the second page').to.equal(true);
    expect(await known.mayHold(sha256('three'))).to.equal(false);
    expect(asked).to.deep.equal([0, 7]);
  });

  it('answers "may hold" while the list cannot be read, and reads it again at the next lookup', async () => {
    let fail = true;
    const known = new KnownContent(async () => {
      if (fail) throw new Error('store closed');
      return { keys: [], next: null };
    });
    expect(await known.mayHold(sha256('x'))).to.equal(true);
    fail = false;
    expect(await known.mayHold(sha256('x'))).to.equal(false);
  });
});

forEachEngine('duplicate content with the known-content set', (engine) => {
  let t: TestService;
  let tree: TempTree;
  let events: AnyBusEvent[] = [];
  const trees: TempTree[] = [];
  const report = 'The quarterly report on soil moisture and irrigation in the south field.\n';

  before(async () => {
    t = await startTestService(engine);
  });
  after(() => t.destroy());
  after(() => Promise.all(trees.map((x) => x.remove())));

  async function indexTree(files: Record<string, string>): Promise<{ path: string; reused: boolean }[]> {
    tree = await tempTree(files);
    trees.push(tree);
    events = [];
    const unsubscribe = t.service.bus.subscribe((e) => events.push(e));
    t.service.indexing.startDirectory(tree.root, { kind: 'directory', force: false });
    await t.service.indexing.settled();
    unsubscribe();
    return events.filter((e) => e.type === 'file_indexed').map((e) => e.data as { path: string; reused: boolean });
  }

  it('lists the indexed contents by the start of their hash', async () => {
    await indexTree({ 'a.txt': report, 'b.txt': 'Something else entirely, about bees.\n' });
    const { keys, next } = await t.service.store.api.files.contentKeys(CONTENT_KEY_CHARS);
    expect(next).to.equal(null);
    expect(keys).to.include(sha256(report).slice(0, CONTENT_KEY_CHARS));
    expect(keys.every((k) => k.length === CONTENT_KEY_CHARS)).to.equal(true);
  });

  it('still reuses identical content after a restart (the set starts from the store\'s list)', async () => {
    const first = await indexTree({ 'original.txt': report + 'restart\n' });
    expect(first.map((e) => e.reused)).to.deep.equal([false]);
    const firstRoot = tree.root;
    t = await t.restart();
    const second = await indexTree({ 'copy.txt': report + 'restart\n', 'new.txt': 'A note on compost temperatures.\n' });
    const byName = new Map(second.map((e) => [e.path.slice(tree.root.length + 1), e.reused]));
    expect(byName.get('copy.txt'), 'copy of a file indexed before the restart').to.equal(true);
    expect(byName.get('new.txt')).to.equal(false);
    expect(firstRoot).to.not.equal(tree.root);
  });
});
