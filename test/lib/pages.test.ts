import { expect } from 'chai';
import { forEachPage } from '../../src/lib/pages.js';

describe('lib/pages', () => {
  it('reads page after page, each from the cursor the last one named, until one names none', async () => {
    const asked: number[] = [];
    const seen: string[][] = [];
    const pages: Record<number, { items: string[]; next: number | null }> = {
      0: { items: ['a', 'b'], next: 7 },
      7: { items: [], next: 9 }, // an empty page that names a next one is not the end
      9: { items: ['c'], next: null },
    };
    await forEachPage(0, async (cursor: number) => (asked.push(cursor), pages[cursor]!), (page) => seen.push(page.items));
    expect(asked).to.deep.equal([0, 7, 9]);
    expect(seen).to.deep.equal([['a', 'b'], [], ['c']]);
  });

  it("stops at the first failing read, with that read's error", async () => {
    let reads = 0;
    const read = async (cursor: number) => {
      reads++;
      if (cursor === 1) throw new Error('page 1 unreadable');
      return { next: cursor + 1 };
    };
    let error: unknown;
    await forEachPage(0, read, () => undefined).catch((err: unknown) => (error = err));
    expect((error as Error).message).to.equal('page 1 unreadable');
    expect(reads).to.equal(2);
  });
});
