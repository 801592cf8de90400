/**
 * sql/0006_create_keyword_index.sql: the triggers that keep segments, postings, lengths and statistics in step with
 * the files table, on PGlite and (with TEST_DATABASE_URL) PostgreSQL.
 */
import { expect } from 'chai';
import { insertFiles } from '../../../bench/lib/keyword-db.js';
import type { SqlDatabase } from '../../../src/store/sql.js';
import { eventually, expectRejection } from '../../helpers/assert.js';
import { forEachEngine } from '../../helpers/engines.js';
import { openKeywordTestDb } from './fixture.js';

interface TermRow {
  lexeme: string;
  tf_a: number;
  tf_b: number;
  tf_c: number;
  tf_d: number;
  len_a: number;
  len_b: number;
  len_c: number;
  len_d: number;
}

/** The unsealed postings of a file's current document. */
async function terms(db: SqlDatabase, fileId: number): Promise<Map<string, TermRow>> {
  const { rows } = await db.query<TermRow>('SELECT t.* FROM keyword_tail t JOIN keyword_docs d USING (doc) WHERE d.file_id = $1', [fileId]);
  return new Map(rows.map((r) => [r.lexeme, r]));
}

const docOf = async (db: SqlDatabase, fileId: number): Promise<number | undefined> =>
  (await db.query<{ doc: number }>('SELECT doc FROM keyword_docs WHERE file_id = $1', [fileId])).rows[0]?.doc;

async function statsAgree(db: SqlDatabase): Promise<void> {
  const { rows } = await db.query<Record<string, number>>(
    `SELECT s.n_docs::int AS n, (SELECT count(*) FROM keyword_docs)::int AS n2,
            s.sum_a::int AS a, (SELECT coalesce(sum(len_a), 0) FROM keyword_docs)::int AS a2,
            s.sum_c::int AS c, (SELECT coalesce(sum(len_c), 0) FROM keyword_docs)::int AS c2,
            s.sum_d::int AS d, (SELECT coalesce(sum(len_d), 0) FROM keyword_docs)::int AS d2
     FROM keyword_stats s`,
  );
  const r = rows[0]!;
  expect([r.n, r.a, r.c, r.d]).to.deep.equal([r.n2, r.a2, r.c2, r.d2]);
}

forEachEngine('keyword index triggers', (engine) => {
  let db: SqlDatabase;
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ db, close } = await openKeywordTestDb(engine));
  });
  afterEach(() => close());

  it('indexes each field under its weight label, with per-field tf and lengths', async () => {
    const [id] = await insertFiles(db, [
      { path: '/d/alpha.txt', filename: 'alpha.txt', extension: 'txt', title: 'alpha beta', keywords: ['gamma'], summary: 'beta delta', content: 'alpha gamma gamma delta zeta' },
    ]);
    const t = await terms(db, id!);
    expect(t.get('alpha')).to.include({ tf_a: 2, tf_b: 0, tf_c: 0, tf_d: 1 });
    expect(t.get('gamma')).to.include({ tf_a: 0, tf_b: 1, tf_c: 0, tf_d: 2 });
    expect(t.get('beta')).to.include({ tf_a: 1, tf_b: 0, tf_c: 1, tf_d: 0 });
    expect(t.get('txt')).to.include({ tf_a: 1 });
    // every posting carries the file's lengths: A = alpha, txt, alpha, beta; B = gamma; C = beta, delta; D = 5 words
    expect(t.get('zeta')).to.include({ len_a: 4, len_b: 1, len_c: 2, len_d: 5 });
    await statsAgree(db);
  });

  it('counts tf by segment exactly as by weight label (sql/0014), over every field and several content segments', async () => {
    const content = Array.from({ length: 6000 }, (_, i) => ['alpha', 'gamma', `w${i % 97}`, 'the', 'delta'][i % 5]).join(' ');
    const [id] = await insertFiles(db, [
      { path: '/d/alpha-gamma.txt', filename: 'alpha-gamma.txt', extension: 'txt', title: 'Alpha beta alpha', keywords: ['gamma ray', 'beta'], summary: 'beta delta alpha', content },
    ]);
    const segments = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM file_segments WHERE file_id = $1 AND seg > 0', [id!])).rows[0]!.n;
    expect(segments, 'content in several segments').to.be.greaterThan(1);
    // 0007's count: positions carrying each weight label, over all of the file's segments
    const { rows } = await db.query<TermRow>(
      `SELECT u.lexeme,
              sum(coalesce(cardinality(array_positions(u.weights, 'A')), 0))::int AS tf_a,
              sum(coalesce(cardinality(array_positions(u.weights, 'B')), 0))::int AS tf_b,
              sum(coalesce(cardinality(array_positions(u.weights, 'C')), 0))::int AS tf_c,
              sum(coalesce(cardinality(array_positions(u.weights, 'D')), 0))::int AS tf_d
       FROM file_segments s, unnest(s.tsv) AS u WHERE s.file_id = $1 GROUP BY u.lexeme`,
      [id!],
    );
    const stored = await terms(db, id!);
    expect(stored.size).to.equal(rows.length);
    for (const r of rows) {
      const t = stored.get(r.lexeme)!;
      expect([t.tf_a, t.tf_b, t.tf_c, t.tf_d], r.lexeme).to.deep.equal([r.tf_a, r.tf_b, r.tf_c, r.tf_d]);
    }
    expect(stored.get('alpha')).to.include({ tf_a: 3, tf_c: 1 });
    expect(stored.get('alpha')!.tf_d, 'summed over the content segments').to.be.greaterThan(256);
  });

  it('splits a file name into words, so parts of it are found', async () => {
    const [id] = await insertFiles(db, [{ path: '/d/Q3_budget-2024.final.xlsx', filename: 'Q3_budget-2024.final.xlsx', extension: 'xlsx' }]);
    expect([...(await terms(db, id!)).keys()].sort()).to.deep.equal(['2024', 'budget', 'final', 'q3', 'xlsx']);
  });

  it('rebuilds a file on update and forgets it on delete, keeping the statistics exact', async () => {
    const [a, b] = await insertFiles(db, [
      { path: '/d/a.txt', filename: 'a.txt', extension: 'txt', content: 'kappa kappa lambda' },
      { path: '/d/b.txt', filename: 'b.txt', extension: 'txt', content: 'lambda mu' },
    ]);
    const firstDocA = await docOf(db, a!);
    await db.query(`UPDATE files SET content = 'omicron omicron omicron' WHERE id = $1`, [a!]);
    expect((await db.query('SELECT 1 FROM keyword_tail WHERE doc = $1', [firstDocA!])).rows, 'the old document\'s postings go').to.have.length(0);
    const t = await terms(db, a!);
    expect(t.has('kappa')).to.equal(false);
    expect(t.get('omicron')).to.include({ tf_d: 3, len_d: 3 });
    await statsAgree(db);
    // an update that changes nothing indexed does not rebuild: the same document stays
    const before = await docOf(db, b!);
    await db.query(`UPDATE files SET size = 5, title = title WHERE id = $1`, [b!]);
    expect(await docOf(db, b!)).to.equal(before);
    const docA = await docOf(db, a!);
    await db.query(`DELETE FROM files WHERE id = $1`, [a!]);
    expect((await db.query('SELECT 1 FROM keyword_tail WHERE doc = $1', [docA!])).rows).to.have.length(0);
    expect((await db.query('SELECT 1 FROM file_segments WHERE file_id = $1', [a!])).rows).to.have.length(0);
    await statsAgree(db);
    const n = (await db.query<{ n: number }>('SELECT n_docs::int AS n FROM keyword_stats')).rows[0]!.n;
    expect(n).to.equal(1);
  });

  it('indexes a document too long for one tsvector, with exact term frequencies past 256', async () => {
    const words = Array.from({ length: 150_000 }, (_, i) => `w${i}`);
    for (let i = 0; i < 300; i++) words[i * 400 + 7] = 'needle';
    const content = words.join(' ');
    // One tsvector could not hold it (this is why content is cut into segments):
    await expectRejection(db.query(`SELECT length(to_tsvector('filesift_english', $1::text))`, [content]), /too long for tsvector/);
    const [id] = await insertFiles(db, [{ path: '/d/long.txt', filename: 'long.txt', extension: 'txt', content }]);
    const segments = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM file_segments WHERE file_id = $1', [id!])).rows[0]!.n;
    expect(segments).to.be.greaterThan(20);
    const needle = (await terms(db, id!)).get('needl');
    expect(needle).to.include({ tf_d: 300, len_d: 150_000 });
  });

  it('cuts segments at whitespace, never inside a word or a character', async () => {
    const pieces = async (body: string, maxBytes: number): Promise<string[]> =>
      (await db.query<{ piece: string }>('SELECT piece FROM filesift_keyword_segments($1, $2) AS piece', [body, maxBytes])).rows.map((r) => r.piece);
    const body = Array.from({ length: 5000 }, (_, i) => `wörd${i}`).join(' ');
    const cut = await pieces(body, 1000);
    expect(cut.length).to.be.greaterThan(30);
    expect(cut.join('')).to.equal(body);
    for (const piece of cut.slice(0, -1)) {
      expect(piece).to.match(/\s$/);
      expect(Buffer.byteLength(piece)).to.be.at.most(1000);
    }
    // no whitespace at all: hard cuts, on character boundaries (é is two bytes)
    expect((await pieces('x'.repeat(2500), 1000)).map((p) => p.length)).to.deep.equal([1000, 1000, 500]);
    const accents = await pieces('é'.repeat(2500), 1001);
    expect(accents.join('')).to.equal('é'.repeat(2500));
    expect(accents.map((p) => Buffer.byteLength(p))).to.deep.equal([1000, 1000, 1000, 1000, 1000]);
    expect(await pieces('', 1000)).to.deep.equal([]);
    expect(await pieces('short', 1000)).to.deep.equal(['short']);
  });

  it('gives each (re)indexing a new document above every earlier one', async () => {
    const [a, b] = await insertFiles(db, [
      { path: '/d/a.txt', filename: 'a.txt', extension: 'txt', content: 'one' },
      { path: '/d/b.txt', filename: 'b.txt', extension: 'txt', content: 'two' },
    ]);
    const [da, db1] = [await docOf(db, a!), await docOf(db, b!)];
    await db.query(`UPDATE files SET content = 'one more' WHERE id = $1`, [a!]);
    const da2 = await docOf(db, a!);
    expect(da2).to.be.greaterThan(Math.max(da!, db1!));
    expect((await db.query('SELECT 1 FROM keyword_tail WHERE doc = $1', [da!])).rows).to.have.length(0);
  });

  it('keeps the short fields apart, and keywords apart from each other, for phrases', async () => {
    const [id] = await insertFiles(db, [
      { path: '/d/heart.txt', filename: 'heart.txt', extension: 'txt', title: 'Failure notes', keywords: ['heart', 'failure'], summary: 'stroke risk', content: 'risk factors' },
    ]);
    const matches = async (phrase: string) =>
      (await db.query(`SELECT 1 FROM file_segments WHERE file_id = $1 AND tsv @@ phraseto_tsquery('filesift_english', $2)`, [id!, phrase])).rows.length > 0;
    // 'heart failure': adjacent keywords; 'txt failure': file name then title; 'failure stroke': keywords then summary;
    // 'risk risk': summary then content
    for (const phrase of ['heart failure', 'txt failure', 'failure stroke', 'risk risk']) expect(await matches(phrase), phrase).to.equal(false);
    for (const phrase of ['failure notes', 'stroke risk', 'risk factors']) expect(await matches(phrase), phrase).to.equal(true);
  });

  it('seals the lowest documents into new blocks of at most 128 each, byte for byte, below the watermark', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => ({ path: `/d/${i}.txt`, filename: `${i}.txt`, extension: 'txt', content: `common w${i % 3}` }));
    await insertFiles(db, rows);
    const seal = async (n: number) => (await db.query<{ n: number }>('SELECT docs_sealed AS n FROM filesift_keyword_seal($1)', [n])).rows[0]!.n;
    expect(await seal(100)).to.equal(100);
    expect(await seal(150)).to.equal(150);
    const blocks = (await db.query<{ n: number; first_doc: number; last_doc: number; bytes: number }>(
      `SELECT n, first_doc::int, last_doc::int, length(postings) AS bytes FROM keyword_blocks WHERE lexeme = 'common' ORDER BY first_doc`,
    )).rows;
    expect(blocks.map((b) => b.n)).to.deep.equal([100, 128, 22]);
    expect(blocks.every((b) => b.bytes === b.n * 22)).to.equal(true);
    for (let i = 1; i < blocks.length; i++) expect(blocks[i - 1]!.last_doc).to.be.lessThan(blocks[i]!.first_doc);
    // The watermark: every document at or below it is sealed, every one above in the tail.
    const upto = (await db.query<{ upto: number }>('SELECT upto::int FROM keyword_seal')).rows[0]!.upto;
    expect(upto).to.equal(blocks[2]!.last_doc);
    expect((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM keyword_tail WHERE doc <= $1`, [upto])).rows[0]!.n).to.equal(0);
    expect((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM keyword_tail WHERE lexeme = 'common'`)).rows[0]!.n).to.equal(50);
    expect(await seal(1000)).to.equal(50);
    expect(await seal(1000)).to.equal(0);
  });

  it('lists the postings of a sealed document that leaves as dead, until it is gone from every count', async () => {
    const [a, b] = await insertFiles(db, [
      { path: '/d/a.txt', filename: 'a.txt', extension: 'txt', content: 'kappa lambda' },
      { path: '/d/b.txt', filename: 'b.txt', extension: 'txt', content: 'kappa' },
    ]);
    await db.query('SELECT filesift_keyword_seal(10)');
    const docA = await docOf(db, a!);
    await db.query(`UPDATE files SET content = 'lambda only' WHERE id = $1`, [a!]);
    const dead = (await db.query<{ lexeme: string }>('SELECT lexeme FROM keyword_dead WHERE doc = $1 ORDER BY lexeme', [docA!])).rows.map((r) => r.lexeme);
    expect(dead).to.deep.equal(['kappa', 'lambda', 'txt']);
    await db.query(`DELETE FROM files WHERE id = $1`, [b!]);
    expect((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM keyword_dead WHERE lexeme = 'kappa'`)).rows[0]!.n).to.equal(2);
    await statsAgree(db);
  });

  // Only a server runs two transactions at once (PGlite runs one statement at a time and never waits on a lock).
  if (engine === 'postgres') {
    it('lets a file that leaves wait for a seal in progress, then lists its postings dead by the committed watermark (sql/0015)', async () => {
      const [a, b] = await insertFiles(db, [
        { path: '/d/a.txt', filename: 'a.txt', extension: 'txt', content: 'kappa lambda' },
        { path: '/d/b.txt', filename: 'b.txt', extension: 'txt', content: 'kappa mu' },
      ]);
      const docB = await docOf(db, b!);
      let deletion: Promise<unknown> | null = null;
      let deleted = false;
      await db.transaction(async (tx) => {
        expect((await tx.query<{ n: number }>('SELECT docs_sealed AS n FROM filesift_keyword_seal(10)')).rows[0]!.n).to.equal(2);
        // another connection deletes b while the seal is not yet committed
        deletion = db.query('DELETE FROM files WHERE id = $1', [b!]).then(() => (deleted = true));
        await eventually(async () => {
          const { rows } = await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'DELETE FROM files%'`,
          );
          return rows[0]!.n === 1;
        });
        expect(deleted, 'the deletion waits for the seal').to.equal(false);
      });
      await deletion;
      // b's document was sealed by the seal that committed first, so its postings in the blocks are listed dead
      const dead = (await db.query<{ lexeme: string }>('SELECT lexeme FROM keyword_dead WHERE doc = $1 ORDER BY lexeme', [docB!])).rows.map((r) => r.lexeme);
      expect(dead).to.deep.equal(['b', 'kappa', 'mu', 'txt']);
      expect(a).to.be.a('number');
      await statsAgree(db);
    });
  }

  it('indexes the positions by their key alone: phrases are listed from the postings, so no write pays a GIN index (sql/0018)', async () => {
    const { rows } = await db.query<{ name: string }>(`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'file_segments' ORDER BY 1`);
    expect(rows.map((r) => r.name)).to.deep.equal(['file_segments_pkey']);
  });
});
