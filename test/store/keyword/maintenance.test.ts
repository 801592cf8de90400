/**
 * src/store/keyword/maintenance.ts: a seal slice with a time budget stops early (a quarter of it) when that quarter
 * ran over its share, the next slices go on from there, and nothing is lost: every document ends up sealed and
 * every search answers as it did from the tail. A large document is sealed alone, a bounded number of its words a
 * call (sql/0019), searches answering the same after every call, and one that leaves half sealed leaves nothing
 * behind. A slice bounded by postings stops before the document that would pass them (sql/0023). Both engines.
 */
import { expect } from 'chai';
import { insertFiles } from '../../../bench/lib/keyword-db.js';
import { parseSearchQuery } from '../../../src/search/query-parser.js';
import { compactKeywordIndex } from '../../../src/store/keyword/compaction.js';
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

  /** The keyword index's documents in order with their postings (distinct words). */
  const postingsByDoc = async (): Promise<number[]> =>
    (await db.query<{ n: number }>('SELECT lexemes AS n FROM keyword_docs ORDER BY doc')).rows.map((r) => r.n);

  it('stops a slice before the document that would take its postings past its bound, one document at least, and loses nothing', async () => {
    const before = await searches();
    const postings = await postingsByDoc();
    expect(postings).to.have.length(200);
    expect(new Set(postings).size).to.be.greaterThan(1); // documents of different sizes, so the cut matters
    /** The postings of the `n` documents from the `from`th. */
    const sum = (from: number, n: number) => postings.slice(from, from + n).reduce((a, b) => a + b, 0);
    // Three documents' postings, and one fewer than four's: three documents either way.
    expect(await sealKeywordIndex(db, 100, Infinity, undefined, sum(0, 3))).to.include({ sealed: 3, postings: sum(0, 3), remaining: 197 });
    expect(await sealKeywordIndex(db, 100, Infinity, undefined, sum(3, 4) - 1)).to.include({ sealed: 3, postings: sum(3, 3), remaining: 194 });
    // A bound below one document's postings still seals that document.
    expect(await sealKeywordIndex(db, 100, Infinity, undefined, 1)).to.include({ sealed: 1, postings: postings[6], remaining: 193 });
    // With a budget the quarter probe is cut by its share of the postings and the rest goes on within the whole.
    const bound = sum(7, 40);
    const probed = await sealKeywordIndex(db, 100, 60_000, undefined, bound);
    expect(probed).to.include({ sealed: 40, postings: bound, remaining: 153 });
    for (let left = probed.remaining; left > 0; ) left = (await sealKeywordIndex(db, 100, 60_000, undefined, 25)).remaining;
    expect(await store.search.unsealedKeywords()).to.equal(0);
    expect(await searches()).to.deep.equal(before);
  });

  it('refuses a bound on postings that is not a positive integer', async () => {
    for (const bound of [0, -1, 1.5, Number.NaN]) await expectRejection(sealKeywordIndex(db, 10, Infinity, undefined, bound), /bad slice postings/);
    expect(await store.search.unsealedKeywords()).to.equal(200);
  });

  it('refuses a budget that is not a positive number of milliseconds', async () => {
    for (const budget of [0, -1, Number.NaN]) await expectRejection(sealKeywordIndex(db, 10, budget), /bad time budget/);
    expect(await store.search.unsealedKeywords()).to.equal(200);
  });

  describe('a large document', () => {
    /** Its words: more than LARGE (with the file name's) and none of them in the other files. */
    const BIG_WORDS = Array.from({ length: 30 }, (_, i) => `big${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}word`);
    /** Words a call for a large document in these tests: the 30-word document takes four or five calls. */
    const LARGE = 8;
    let bigId: number;

    beforeEach(async () => {
      // Documents 201–203 after the 200 of the outer beforeEach: the large one between two small ones.
      const [, big] = await insertFiles(db, [
        { path: '/d/before.txt', filename: 'before.txt', extension: 'txt', content: 'amber note bigaaword' },
        { path: '/d/big.txt', filename: 'big.txt', extension: 'txt', content: `${BIG_WORDS.join(' ')} amber note` },
        { path: '/d/after.txt', filename: 'after.txt', extension: 'txt', content: 'cobalt note bigbaword' },
      ]);
      bigId = big!;
    });

    /** Every posting, sealed or not, as text: a seal moves them between the tail and the blocks, never changes one. */
    const postings = async (): Promise<string[]> => {
      const { rows } = await db.query<{ p: string }>(
        `SELECT concat_ws(' ', lexeme, doc, tf_a, tf_b, tf_c, tf_d, len_a, len_b, len_c, len_d) AS p FROM keyword_tail
         UNION ALL
         SELECT concat_ws(' ', b.lexeme, get_byte(r, 0) << 24 | get_byte(r, 1) << 16 | get_byte(r, 2) << 8 | get_byte(r, 3),
                          (get_byte(r, 4) << 8 | get_byte(r, 5)), (get_byte(r, 6) << 8 | get_byte(r, 7)), (get_byte(r, 8) << 8 | get_byte(r, 9)),
                          (get_byte(r, 10) << 8 | get_byte(r, 11)), (get_byte(r, 12) << 8 | get_byte(r, 13)), (get_byte(r, 14) << 8 | get_byte(r, 15)),
                          (get_byte(r, 16) << 8 | get_byte(r, 17)), get_byte(r, 18) << 24 | get_byte(r, 19) << 16 | get_byte(r, 20) << 8 | get_byte(r, 21))
         FROM keyword_blocks b CROSS JOIN LATERAL generate_series(0, b.n - 1) AS i CROSS JOIN LATERAL substring(b.postings FROM i * 22 + 1 FOR 22) AS r`,
      );
      return rows.map((r) => r.p).sort();
    };
    const bigSearches = () =>
      Promise.all(['amber note', `${BIG_WORDS[0]} ${BIG_WORDS[29]}`, `${BIG_WORDS[12]} -cobalt`, 'bigbaword', 'note'].map((q) => store.search.keyword(parseSearchQuery(q), { limit: 50 })));
    const watermark = async () =>
      (await db.query<{ upto: number; partial: number | null }>('SELECT upto::int, partial_doc::int AS partial FROM keyword_seal')).rows[0]!;

    it('is sealed alone, a bounded number of its words a call, every search answering the same after each call', async () => {
      const before = { postings: await postings(), answers: await bigSearches() };
      const bigDoc = (await db.query<{ doc: number }>('SELECT doc::int FROM keyword_docs WHERE file_id = $1', [bigId])).rows[0]!.doc;
      // The slice stops before the large document, whatever its size.
      expect(await sealKeywordIndex(db, 1000, Infinity, LARGE)).to.include({ sealed: 201, large: false, remaining: 2 });
      expect(await watermark()).to.deep.equal({ upto: bigDoc - 1, partial: null });
      const calls: { sealed: number; postings: number; large: boolean }[] = [];
      for (;;) {
        const { sealed, postings: moved, large } = await sealKeywordIndex(db, 1000, Infinity, LARGE);
        calls.push({ sealed, postings: moved, large });
        expect(await bigSearches(), `answers after call ${calls.length}`).to.deep.equal(before.answers);
        if (sealed > 0) break;
        expect(await watermark()).to.deep.equal({ upto: bigDoc - 1, partial: bigDoc });
      }
      // 30 words, the file name's ("big", "txt"), amber and note: 34 postings, 8 a call, the last call 2.
      expect(calls).to.deep.equal([
        { sealed: 0, postings: 8, large: true },
        { sealed: 0, postings: 8, large: true },
        { sealed: 0, postings: 8, large: true },
        { sealed: 0, postings: 8, large: true },
        { sealed: 1, postings: 2, large: true },
      ]);
      expect(await watermark()).to.deep.equal({ upto: bigDoc, partial: null });
      expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM keyword_blocks WHERE first_doc = $1 AND n = 1', [bigDoc])).rows[0]!.n).to.equal(34);
      expect(await sealKeywordIndex(db, 1000, Infinity, LARGE)).to.include({ sealed: 1, large: false, remaining: 0 });
      expect(await postings()).to.deep.equal(before.postings);
      expect(await bigSearches()).to.deep.equal(before.answers);
      // Compaction packs the single-posting blocks with their neighbours' and changes no answer either.
      for (let step = await compactKeywordIndex(db, { blocks: 50 }, 'now'); step.state === 'running'; ) step = await compactKeywordIndex(db, { blocks: 50 }, 'no');
      expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM keyword_blocks WHERE lexeme = $1', ['note'])).rows[0]!.n).to.equal(2);
      expect(await postings()).to.deep.equal(before.postings);
      expect(await bigSearches()).to.deep.equal(before.answers);
    });

    it('leaves, half sealed, with exactly its sealed postings listed dead; the next call moves the watermark past it', async () => {
      await sealKeywordIndex(db, 1000, Infinity, LARGE);
      await sealKeywordIndex(db, 1000, Infinity, LARGE);
      await sealKeywordIndex(db, 1000, Infinity, LARGE);
      const bigDoc = (await db.query<{ doc: number }>('SELECT doc::int FROM keyword_docs WHERE file_id = $1', [bigId])).rows[0]!.doc;
      const sealed = (await db.query<{ lexeme: string }>('SELECT lexeme FROM keyword_blocks WHERE first_doc = $1 ORDER BY lexeme', [bigDoc])).rows.map((r) => r.lexeme);
      expect(sealed).to.have.length(16);
      await db.query('DELETE FROM files WHERE id = $1', [bigId]);
      const dead = (await db.query<{ lexeme: string }>('SELECT lexeme FROM keyword_dead WHERE doc = $1 ORDER BY lexeme', [bigDoc])).rows.map((r) => r.lexeme);
      expect(dead).to.deep.equal(sealed);
      expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM keyword_tail WHERE doc = $1', [bigDoc])).rows[0]!.n).to.equal(0);
      // The same files never sealed, the large one deleted: the answers to compare with.
      const { db: other, close: closeOther } = await openKeywordTestDb(engine);
      try {
        const { rows: files } = await db.query<{ path: string; filename: string; extension: string; content: string }>(
          'SELECT path, filename, extension, content FROM files ORDER BY id',
        );
        await insertFiles(other, files);
        const queries = ['amber note', 'bigaaword', 'bigbaword note', 'note'];
        // Hits by path and score: the two databases number their files apart.
        const answers = async (on: SqlDatabase): Promise<[string, number][][]> => {
          const paths = new Map((await on.query<{ id: number; path: string }>('SELECT id::int, path FROM files')).rows.map((r) => [r.id, r.path]));
          const found = await Promise.all(queries.map((q) => createStore(on).search.keyword(parseSearchQuery(q), { limit: 50 })));
          return found.map((a) => a.hits.map((h): [string, number] => [paths.get(h.id)!, h.score]));
        };
        const expected = await answers(other);
        expect(expected.flat()).to.have.length.greaterThan(100);
        expect(await answers(db)).to.deep.equal(expected);
        expect(await sealKeywordIndex(db, 1000, Infinity, LARGE)).to.include({ sealed: 1, postings: 0, large: true });
        expect(await watermark()).to.deep.equal({ upto: bigDoc, partial: null });
        expect(await sealKeywordIndex(db, 1000, Infinity, LARGE)).to.include({ sealed: 1, remaining: 0 });
        expect(await answers(db)).to.deep.equal(expected);
      } finally {
        await closeOther();
      }
    });

    it('voids a running compaction copy when it seals a slice of its words', async () => {
      await sealKeywordIndex(db, 1000, Infinity, LARGE);
      const first = await compactKeywordIndex(db, { blocks: 5 }, 'now');
      expect(first.state).to.equal('running');
      await sealKeywordIndex(db, 1000, Infinity, LARGE);
      expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM keyword_seal WHERE compaction_upto IS NULL')).rows[0]!.n).to.equal(1);
      // Sealed to the end and compacted from the start: nothing the copy had missed is lost.
      const before = await bigSearches();
      while ((await sealKeywordIndex(db, 1000, Infinity, LARGE)).remaining > 0);
      for (let step = await compactKeywordIndex(db, { blocks: 50 }, 'now'); step.state === 'running'; ) step = await compactKeywordIndex(db, { blocks: 50 }, 'no');
      expect(await bigSearches()).to.deep.equal(before);
      expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM keyword_tail')).rows[0]!.n).to.equal(0);
    });
  });
});
