/**
 * sql/0013_keyword_slices.sql and src/store/keyword/slices.ts: a long text's keyword index written in slices ends
 * with exactly the segments, postings and lengths of the one-statement write (so the same BM25 scores); until then
 * the file waits in keyword_pending, whatever ended its writer (the upkeep finishes it); a slice stops at its time
 * budget (sql/0022), after one piece at least; a new write of the file or its deletion supersedes the pending
 * slices. Its postings are written in parts (sql/0020), sealing held below the document meanwhile. Both engines.
 */
import { expect } from 'chai';
import { IndexUpkeep } from '../../../src/indexing/upkeep.js';
import { createLogger } from '../../../src/logger.js';
import { createFilesRepository } from '../../../src/store/repositories/files.repository.js';
import { KEYWORD_SLICE_PIECES, KEYWORD_SLICED_FROM_CHARS } from '../../../src/store/keyword/slices.js';
import { sealKeywordIndex } from '../../../src/store/keyword/maintenance.js';
import { parseSearchQuery } from '../../../src/search/query-parser.js';
import type { SqlDatabase } from '../../../src/store/sql.js';
import type { StoreApi } from '../../../src/store/store.js';
import { forEachEngine } from '../../helpers/engines.js';
import { indexedFileWrite, openTestStore, type TestStore } from '../../helpers/store.js';

const WORDS = ['amber', 'basalt', 'cobalt', 'dune', 'ember', 'fjord', 'garnet', 'harbor', 'indigo', 'jasper', 'kelp', 'lagoon'];

/** ~`chars` characters of words, some multi-byte, with a word only near the end ("zephyrine"). */
function longText(chars: number): string {
  const parts: string[] = [];
  let n = 0;
  for (let i = 0; n < chars; i++) {
    const word = `${WORDS[i % WORDS.length]}${i % 7 === 0 ? 'é' : ''}${i % 13}`;
    parts.push(i % 40 === 39 ? `${word}.\n` : word);
    n += word.length + 1;
  }
  return `${parts.join(' ')} zephyrine`;
}

interface Snapshot {
  segments: string[];
  lengths: unknown;
  postings: string[];
}

async function snapshot(db: SqlDatabase, fileId: number): Promise<Snapshot> {
  const segments = await db.query<{ s: string }>('SELECT seg || \':\' || tsv::text AS s FROM file_segments WHERE file_id = $1 ORDER BY seg', [fileId]);
  const lengths = await db.query('SELECT len_a, len_b, len_c, len_d FROM keyword_docs WHERE file_id = $1', [fileId]);
  const postings = await db.query<{ p: string }>(
    `SELECT concat_ws(' ', t.lexeme, t.tf_a, t.tf_b, t.tf_c, t.tf_d, t.len_a, t.len_b, t.len_c, t.len_d) AS p
     FROM keyword_tail t JOIN keyword_docs d USING (doc) WHERE d.file_id = $1 ORDER BY t.lexeme`,
    [fileId],
  );
  return { segments: segments.rows.map((r) => r.s), lengths: lengths.rows, postings: postings.rows.map((r) => r.p) };
}

const pending = async (store: StoreApi): Promise<number[]> => store.search.pendingKeywords();

forEachEngine('keyword index in slices', (engine) => {
  let t: TestStore;
  beforeEach(async () => {
    t = await openTestStore(engine);
  });
  afterEach(() => t.close());

  const write = (path: string, content: string) =>
    indexedFileWrite(path, [], { text: content, analysis: { title: 'A long one', summary: 'amber summary', keywords: ['basalt'], provider: 'local' } });

  it('writes a long text a slice at a time and ends with the postings of the one-statement write', async () => {
    const text = longText(600_000);
    expect(text.length).to.be.above(KEYWORD_SLICED_FROM_CHARS);
    // Slices of KEYWORD_SLICE_PIECES pieces: a time budget no slice reaches, however loaded the machine.
    const slices = createFilesRepository(t.db, { keywordSliceMs: 600_000 });
    const id = await slices.saveIndexed(write('/a/long.txt', text));
    // The write took the first slice only: the file waits, with no keyword document yet.
    expect(await pending(t.store)).to.deep.equal([id]);
    expect((await snapshot(t.db, id)).lengths).to.deep.equal([]);
    const zephyr = parseSearchQuery('zephyrine');
    expect((await t.store.search.keyword(zephyr, { limit: 10 })).hits).to.deep.equal([]);
    let calls = 0;
    while (!(await t.store.search.continueKeywords(id, 600_000))) calls++;
    // 600,000 characters (~610,000 bytes) are ~39 pieces of up to 16,000 bytes: 16 with the write, 16 and 7 in two
    // calls, then one call for the postings (the true).
    expect(calls).to.be.within(2, 3);
    expect(await pending(t.store)).to.deep.equal([]);
    expect(await t.store.search.continueKeywords(id)).to.equal(true); // nothing left: answers at once

    // The same file (its name too: it is indexed) written whole, by a repository that does not slice.
    const whole = createFilesRepository(t.db, { keywordSlicePieces: 0 });
    const wholeId = await whole.saveIndexed(write('/b/long.txt', text));
    expect(await pending(t.store)).to.deep.equal([]);
    const [sliced, inOne] = [await snapshot(t.db, id), await snapshot(t.db, wholeId)];
    expect(sliced.segments.length).to.be.above(KEYWORD_SLICE_PIECES + 3);
    expect(sliced).to.deep.equal(inOne);
    // Both found by the word at the very end, with one score.
    const { hits } = await t.store.search.keyword(zephyr, { limit: 10 });
    expect(hits.map((h) => h.id).sort()).to.deep.equal([id, wholeId].sort());
    expect(hits[0]!.score).to.equal(hits[1]!.score);
  });

  it('stops a slice at its time budget, after one piece at least, and ends with the same postings', async () => {
    // Budget 0: every slice stops after its first piece (a text of rustdoc's search index cost 615 ms a piece and
    // held the store for 4.3 s in one slice of 16, sql/0022).
    const text = longText(100_000);
    const onePiece = createFilesRepository(t.db, { keywordSliceMs: 0 });
    const id = await onePiece.saveIndexed(write('/t/long.txt', text));
    const segments = async (): Promise<number> =>
      (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM file_segments WHERE file_id = $1 AND seg > 0', [id])).rows[0]!.n;
    expect(await segments()).to.equal(1);
    expect(await pending(t.store)).to.deep.equal([id]);
    let pieces = 1;
    while (!(await t.store.search.continueKeywords(id, 0))) {
      const now = await segments();
      expect([pieces, pieces + 1]).to.include(now); // a piece a call, then the postings' call
      pieces = now;
    }
    // ~100,000 characters (~101,000 bytes) are 7 pieces of up to 16,000 bytes.
    expect(pieces).to.equal(7);
    const whole = createFilesRepository(t.db, { keywordSlicePieces: 0 });
    const wholeId = await whole.saveIndexed(write('/u/long.txt', text));
    expect(await snapshot(t.db, id)).to.deep.equal(await snapshot(t.db, wholeId));
  });

  it('leaves a short text whole, and a long one cut short is finished by the upkeep', async () => {
    const shortId = await t.store.files.saveIndexed(write('/b/short.txt', longText(KEYWORD_SLICED_FROM_CHARS - 100)));
    expect(await pending(t.store)).to.deep.equal([]);
    expect((await snapshot(t.db, shortId)).lengths).to.have.length(1);

    // As after a crash between the slices: the write committed, nobody continued it.
    const id = await t.store.files.saveIndexed(write('/b/long.txt', longText(400_000)));
    expect(await pending(t.store)).to.deep.equal([id]);
    const upkeep = new IndexUpkeep({ store: t.store, logger: createLogger('silent'), checkEveryMs: 0, pauseMs: 0 });
    try {
      upkeep.written(1, true);
      await upkeep.idle();
    } finally {
      await upkeep.close();
    }
    expect(await pending(t.store)).to.deep.equal([]);
    expect((await snapshot(t.db, id)).lengths).to.have.length(1);
    // Found by the word at its very end, as the short one is.
    expect((await t.store.search.keyword(parseSearchQuery('zephyrine'), { limit: 10 })).hits.map((h) => h.id).sort()).to.deep.equal([shortId, id].sort());
  });

  it('a new write of the file, or its removal, supersedes its pending slices', async () => {
    const id = await t.store.files.saveIndexed(write('/c/long.txt', longText(400_000)));
    expect(await pending(t.store)).to.deep.equal([id]);
    // Re-indexed with a short text before its slices were done.
    const again = await t.store.files.saveIndexed(write('/c/long.txt', 'only basalt now'));
    expect(again).to.equal(id);
    expect(await pending(t.store)).to.deep.equal([]);
    expect(await t.store.search.continueKeywords(id)).to.equal(true);
    const snap = await snapshot(t.db, id);
    expect(snap.segments.some((s) => s.includes('zephyrin'))).to.equal(false);
    expect(snap.postings.map((p) => p.split(' ')[0])).to.include('basalt');

    const other = await t.store.files.saveIndexed(write('/c/other.txt', longText(400_000)));
    expect(await pending(t.store)).to.deep.equal([other]);
    await t.store.files.removePaths(['/c/other.txt']);
    expect(await pending(t.store)).to.deep.equal([]);
    expect(await t.store.search.continueKeywords(other)).to.equal(true);
  });

  describe('postings in parts', () => {
    /** ~330,000 characters (more than one slice of pieces) of 3,000 distinct words, each many times. */
    const vocabulary = (): string => {
      const words = Array.from({ length: 3000 }, (_, i) => `qx${i.toString(36)}v`);
      const out: string[] = [];
      for (let i = 0; out.length < 50_000; i++) out.push(words[(i * 7) % words.length]!);
      return out.join(' ');
    };
    /** A call with a small bound: 500 postings a part. */
    const next = async (fileId: number): Promise<boolean> =>
      (await t.db.query<{ done: boolean }>('SELECT filesift_keyword_continue($1, $2, 500) AS done', [fileId, KEYWORD_SLICE_PIECES])).rows[0]!.done;
    const tailRows = async (fileId: number): Promise<number> =>
      (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM keyword_tail t JOIN keyword_docs d USING (doc) WHERE d.file_id = $1', [fileId])).rows[0]!.n;
    const found = async (word: string): Promise<number[]> => (await t.store.search.keyword(parseSearchQuery(word), { limit: 10 })).hits.map((h) => h.id).sort();
    const watermark = async (): Promise<number> => (await t.db.query<{ upto: number }>('SELECT upto::int FROM keyword_seal')).rows[0]!.upto;

    it('writes them a part at a time, searchable as they come, sealing held below; ending as the one-statement write', async () => {
      const text = vocabulary();
      const [before] = await Promise.all([t.store.files.saveIndexed(write('/p/before.txt', 'amber before'))]);
      const id = await t.store.files.saveIndexed(write('/p/vocab.txt', text));
      while ((await t.db.query('SELECT 1 FROM keyword_docs WHERE file_id = $1', [id])).rows.length === 0) expect(await next(id)).to.equal(false);
      // The first part: the document, its lengths final, and its first 500 words (lexeme order).
      expect(await tailRows(id)).to.equal(500);
      expect(await pending(t.store)).to.deep.equal([id]);
      const after = await t.store.files.saveIndexed(write('/p/after.txt', 'amber after'));
      expect(await found('qx0v')).to.deep.equal([id]); // "qx0v" sorts among the first
      expect(await found('qxzzv')).to.deep.equal([]); // "qxzzv" (1,295 in base 36) is not in yet
      // A seal stops below the document in progress, and seals nothing more while it is.
      const docOf = async (fileId: number) => (await t.db.query<{ doc: number }>('SELECT doc::int FROM keyword_docs WHERE file_id = $1', [fileId])).rows[0]!.doc;
      const sealed = await sealKeywordIndex(t.db, 1000);
      expect(sealed).to.include({ sealed: 1, large: false, remaining: 2 });
      expect(await watermark()).to.equal(await docOf(before));
      expect(await sealKeywordIndex(t.db, 1000)).to.include({ sealed: 0, remaining: 2 });

      let calls = 1;
      for (; !(await next(id)); calls++) expect(await found('amber')).to.include.members([before, after]);
      calls++;
      // 3,000 words and the file name's, title's, keywords' and summary's: 500 a call, the last call fewer.
      const words = await tailRows(id);
      expect(words).to.be.within(3001, 3010);
      expect(calls).to.equal(Math.floor(words / 500) + 1);
      expect(await pending(t.store)).to.deep.equal([]);
      expect(await found('qxzzv')).to.deep.equal([id]);

      // The same file written whole in one statement: the same segments, postings and lengths.
      const whole = createFilesRepository(t.db, { keywordSlicePieces: 0 });
      const wholeId = await whole.saveIndexed(write('/q/vocab.txt', text));
      expect(await snapshot(t.db, id)).to.deep.equal(await snapshot(t.db, wholeId));
      // Sealed to the end, in parts too (more than 500 words): every search the same as from the tail.
      const queries = ['qx0v', 'qxzzv amber', 'qx1av -after'];
      const fromTail = await Promise.all(queries.map((q) => t.store.search.keyword(parseSearchQuery(q), { limit: 10 })));
      while ((await sealKeywordIndex(t.db, 1000, Infinity, 500)).remaining > 0);
      expect(await Promise.all(queries.map((q) => t.store.search.keyword(parseSearchQuery(q), { limit: 10 })))).to.deep.equal(fromTail);
    });

    it('a document deleted between its parts leaves nothing behind, and sealing goes on past it', async () => {
      const id = await t.store.files.saveIndexed(write('/r/vocab.txt', vocabulary()));
      while ((await t.db.query('SELECT 1 FROM keyword_docs WHERE file_id = $1', [id])).rows.length === 0) await next(id);
      expect(await next(id)).to.equal(false);
      expect(await tailRows(id)).to.equal(1000);
      const doc = (await t.db.query<{ doc: number }>('SELECT doc::int FROM keyword_docs WHERE file_id = $1', [id])).rows[0]!.doc;
      const later = await t.store.files.saveIndexed(write('/r/later.txt', 'amber later'));
      await t.store.files.removePaths(['/r/vocab.txt']);
      expect(await pending(t.store)).to.deep.equal([]);
      expect((await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM keyword_tail WHERE doc = $1', [doc])).rows[0]!.n).to.equal(0);
      expect(await next(id)).to.equal(true);
      expect(await sealKeywordIndex(t.db, 1000)).to.include({ sealed: 1, remaining: 0 });
      expect(await found('amber')).to.deep.equal([later]);
      const stats = (await t.db.query<{ ok: boolean }>('SELECT n_docs = (SELECT count(*) FROM keyword_docs) AS ok FROM keyword_stats')).rows[0]!.ok;
      expect(stats).to.equal(true);
    });
  });
});
