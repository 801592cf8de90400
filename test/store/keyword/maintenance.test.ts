/**
 * src/store/keyword/maintenance.ts: a seal slice with a time budget stops early (a quarter of it) when that quarter
 * ran over its share, the next slices go on from there, and nothing is lost: every document ends up sealed and
 * every search answers as it did from the tail. Both engines.
 */
import { expect } from 'chai';
import { insertFiles } from '../../../bench/lib/keyword-db.js';
import { parseSearchQuery } from '../../../src/search/query-parser.js';
import { sealKeywordIndex } from '../../../src/store/keyword/maintenance.js';
import type { SqlDatabase } from '../../../src/store/sql.js';
import { createStore, type StoreApi } from '../../../src/store/store.js';
import { expectRejection } from '../../helpers/assert.js';
import { forEachEngine } from '../../helpers/engines.js';
import { openKeywordTestDb } from './fixture.js';

const WORDS = ['amber', 'basalt', 'cobalt', 'dune', 'ember', 'fjord', 'garnet', 'harbor', 'indigo', 'jasper'];
/** A budget no statement keeps to: every timed slice stops after its first quarter. */
const NO_TIME = 1e-9;

forEachEngine('sealKeywordIndex', (engine) => {
  let db: SqlDatabase;
  let store: StoreApi;
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ db, close } = await openKeywordTestDb(engine));
    store = createStore(db);
    await insertFiles(
      db,
      Array.from({ length: 200 }, (_, i) => ({ path: `/d/${i}.txt`, filename: `${i}.txt`, extension: 'txt', content: `${WORDS[i % 10]} ${WORDS[(i * 7) % 10]} note ${i}` })),
    );
  });
  afterEach(() => close());

  const searches = () => Promise.all(['amber garnet', 'note', 'cobalt -dune'].map((q) => store.search.keyword(parseSearchQuery(q), { limit: 50 })));

  it('stops a slice that ran over its budget after its first quarter, resumes from there, and loses nothing', async () => {
    const before = await searches();
    const first = await sealKeywordIndex(db, 100, NO_TIME);
    expect(first).to.include({ sealed: 25, remaining: 175 });
    expect(first.ms).to.be.greaterThan(0);
    let sealed = first.sealed;
    let slices = 1;
    for (let left = first.remaining; left > 0; slices++) {
      const next = await sealKeywordIndex(db, 100, NO_TIME);
      expect(next.sealed).to.equal(Math.min(25, left));
      expect(next.remaining).to.equal(left - next.sealed);
      sealed += next.sealed;
      left = next.remaining;
    }
    expect({ sealed, slices }).to.deep.equal({ sealed: 200, slices: 8 });
    expect(await store.search.unsealedKeywords()).to.equal(0);
    expect(await searches()).to.deep.equal(before);
  });

  it('seals the whole slice within its budget, or without one', async () => {
    const before = await searches();
    expect(await sealKeywordIndex(db, 120, 60_000)).to.include({ sealed: 120, remaining: 80 });
    expect(await sealKeywordIndex(db, 120)).to.include({ sealed: 80, remaining: 0 });
    expect(await searches()).to.deep.equal(before);
  });

  it('refuses a budget that is not a positive number of milliseconds', async () => {
    for (const budget of [0, -1, Number.NaN]) await expectRejection(sealKeywordIndex(db, 10, budget), /bad time budget/);
    expect(await store.search.unsealedKeywords()).to.equal(200);
  });
});
