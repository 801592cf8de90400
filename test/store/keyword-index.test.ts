/**
 * sql/0006_create_keyword_index.sql: the triggers that keep segments, postings, lengths and statistics in step with
 * the files table, on PGlite and (with TEST_DATABASE_URL) PostgreSQL.
 */
import { expect } from 'chai';
import { insertFiles } from '../../bench/lib/keyword-db.js';
import type { SqlDatabase } from '../../src/store/sql.js';
import { expectRejection } from '../helpers/assert.js';
import { forEachEngine } from '../helpers/engines.js';
import { openKeywordTestDb } from './queries/keyword-fixture.js';

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

async function terms(db: SqlDatabase, fileId: number): Promise<Map<string, TermRow>> {
  const { rows } = await db.query<TermRow>('SELECT * FROM file_terms WHERE file_id = $1', [fileId]);
  return new Map(rows.map((r) => [r.lexeme, r]));
}

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

  it('splits a file name into words, so parts of it are found', async () => {
    const [id] = await insertFiles(db, [{ path: '/d/Q3_budget-2024.final.xlsx', filename: 'Q3_budget-2024.final.xlsx', extension: 'xlsx' }]);
    expect([...(await terms(db, id!)).keys()].sort()).to.deep.equal(['2024', 'budget', 'final', 'q3', 'xlsx']);
  });

  it('rebuilds a file on update and forgets it on delete, keeping the statistics exact', async () => {
    const [a, b] = await insertFiles(db, [
      { path: '/d/a.txt', filename: 'a.txt', extension: 'txt', content: 'kappa kappa lambda' },
      { path: '/d/b.txt', filename: 'b.txt', extension: 'txt', content: 'lambda mu' },
    ]);
    await db.query(`UPDATE files SET content = 'omicron omicron omicron' WHERE id = $1`, [a!]);
    const t = await terms(db, a!);
    expect(t.has('kappa')).to.equal(false);
    expect(t.get('omicron')).to.include({ tf_d: 3, len_d: 3 });
    await statsAgree(db);
    // an update that changes nothing indexed does not rebuild: the same row versions stay
    const before = await db.query('SELECT ctid::text AS c FROM file_terms WHERE file_id = $1 ORDER BY lexeme', [b!]);
    await db.query(`UPDATE files SET size = 5, title = title WHERE id = $1`, [b!]);
    expect((await db.query('SELECT ctid::text AS c FROM file_terms WHERE file_id = $1 ORDER BY lexeme', [b!])).rows).to.deep.equal(before.rows);
    await db.query(`DELETE FROM files WHERE id = $1`, [a!]);
    expect((await db.query('SELECT 1 FROM file_terms WHERE file_id = $1', [a!])).rows).to.have.length(0);
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
    const needle = (await db.query<TermRow>(`SELECT * FROM file_terms WHERE file_id = $1 AND lexeme = 'needl'`, [id!])).rows[0];
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
});
