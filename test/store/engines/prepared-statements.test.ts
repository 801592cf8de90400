/**
 * `query(text, params, { prepare: true })`: the same rows as an unnamed query on both engines, and on PGlite a
 * real named statement (pg_prepared_statements shows it) that is reused, bounded, and run under PGlite's locks.
 */
import { PGlite } from '@electric-sql/pglite';
import { expect } from 'chai';
import { openPglite } from '../../../src/store/engines/pglite.js';
import { PgliteStatements } from '../../../src/store/engines/pglite-statements.js';
import type { SqlDatabase, SqlValue } from '../../../src/store/sql.js';
import { expectRejection } from '../../helpers/assert.js';
import { forEachEngine } from '../../helpers/engines.js';
import { openTestStore, type TestStore } from '../../helpers/store.js';

const ROWS = `
CREATE TABLE prepared_probe (
  id bigint PRIMARY KEY,
  name text,
  tags text[],
  at timestamptz,
  ratio float8,
  flag boolean,
  blob bytea
);
INSERT INTO prepared_probe VALUES
  (1, 'one', '{a,b}', '2026-01-02T03:04:05Z', 0.5, true, '\\x0102'),
  (2, 'it''s two', '{}', NULL, NULL, false, NULL),
  (9007199254740000, NULL, '{"with space","quote\\"d"}', '1999-12-31T23:59:59.123Z', -1e300, NULL, '\\x');`;

const SELECT = `SELECT id, name, tags, at, ratio, flag, blob FROM prepared_probe
  WHERE id = ANY($1::bigint[]) AND (name IS DISTINCT FROM $2::text) AND at IS DISTINCT FROM $3::timestamptz
  ORDER BY id`;

forEachEngine('query with { prepare: true }', (engine) => {
  let t: TestStore;
  let db: SqlDatabase;

  before(async () => {
    t = await openTestStore(engine);
    db = t.db;
    await db.exec(ROWS);
  });
  after(() => t.close());

  const cases: [string, SqlValue[]][] = [
    ['every row', [[1, 2, 9007199254740000], 'none', new Date(0)]],
    ['a quoted text parameter', [[1, 2], "it's two", null]],
    ['a date parameter', [[1, 9007199254740000], null, new Date('2026-01-02T03:04:05Z')]],
    ['no row', [[], null, null]],
  ];
  for (const [title, params] of cases) {
    it(`returns what an unnamed query returns: ${title}`, async () => {
      const plain = await db.query(SELECT, params);
      const prepared = await db.query(SELECT, params, { prepare: true });
      expect(prepared.rows).to.deep.equal(plain.rows);
      // Run again: the second run uses the statement prepared by the first.
      expect((await db.query(SELECT, params, { prepare: true })).rows).to.deep.equal(plain.rows);
    });
  }

  it('queryBytes answers binary fields as raw bytes, and plain queries work right after it', async () => {
    const rows = await db.queryBytes("SELECT int4send(id::int4), blob, convert_to(name, 'UTF8') FROM prepared_probe WHERE id < $1 ORDER BY id", [3]);
    expect(rows.map((r) => r.map((f) => (f === null ? null : [...f])))).to.deep.equal([
      [[0, 0, 0, 1], [1, 2], [...Buffer.from('one')]],
      [[0, 0, 0, 2], null, [...Buffer.from("it's two")]],
    ]);
    // A reply larger than one chunk arrives whole.
    const big = (await db.queryBytes("SELECT convert_to(repeat('x', 300000), 'UTF8')"))[0]![0];
    expect(big!.byteLength).to.equal(300_000);
    await expectRejection(db.queryBytes('SELECT 1/0'), /division by zero/);
    // PGlite's own query path still gets its replies (the raw stream's callback must not stay installed).
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM prepared_probe')).rows).to.deep.equal([{ n: 3 }]);
    expect(await db.transaction(async (tx) => (await tx.queryBytes('SELECT int2send(7::int2)'))[0]![0]![1])).to.equal(7);
    expect((await db.query<{ name: string }>('SELECT name FROM prepared_probe WHERE id = 1')).rows).to.deep.equal([{ name: 'one' }]);
  });

  it('readBytes hands the rows to a reader, whose decoded answer stays intact after the next statements reuse the buffer', async () => {
    const decode = (rows: (Uint8Array | null)[][]) => rows.map((r) => r.map((f) => (f === null ? null : Buffer.from(f).toString('hex'))));
    const first = await db.readBytes("SELECT int4send(id::int4), blob, convert_to(name, 'UTF8') FROM prepared_probe WHERE id < $1 ORDER BY id", [3], decode);
    const copied = await db.queryBytes("SELECT int4send(id::int4), blob, convert_to(name, 'UTF8') FROM prepared_probe WHERE id < $1 ORDER BY id", [3]);
    // A small reply into the same buffer, then one larger than its first size (1 MB) and one beyond what it keeps
    // (16 MB): each arrives whole.
    expect(await db.readBytes("SELECT convert_to(repeat('z', 100), 'UTF8')", [], ([row]) => row![0]!.byteLength)).to.equal(100);
    for (const size of [3_000_000, 20_000_000]) {
      const length = await db.readBytes(`SELECT convert_to(repeat('y', ${size}), 'UTF8')`, [], ([row]) => {
        expect(row![0]!.every((b) => b === 0x79)).to.equal(true);
        return row![0]!.byteLength;
      });
      expect(length).to.equal(size);
    }
    expect(first).to.deep.equal([
      ['00000001', '0102', Buffer.from('one').toString('hex')],
      ['00000002', null, Buffer.from("it's two").toString('hex')],
    ]);
    // queryBytes' rows are a copy of their own: the statements since did not overwrite them.
    expect(decode(copied)).to.deep.equal(first);
    await expectRejection(db.readBytes('SELECT 1/0', [], () => 'never'), /division by zero/);
    await expectRejection(db.readBytes('SELECT int2send(1::int2)', [], () => { throw new Error('the reader failed'); }), /the reader failed/);
    expect(await db.transaction((tx) => tx.readBytes('SELECT int2send(7::int2)', [], ([row]) => row![0]![1]))).to.equal(7);
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM prepared_probe')).rows).to.deep.equal([{ n: 3 }]);
  });

  it("bytesColumn() writes a large bytea as this engine moves it best, and queryBytes answers the same bytes", async () => {
    const expr = `decode(repeat('00ff7f80', 300000), 'hex')`; // 1.2 MB of every kind of byte, NUL included
    const [row] = await db.queryBytes(`SELECT ${expr}, ${db.bytesColumn(expr)}, int4send(7)`);
    const [plain, wrapped, after] = row!;
    expect(wrapped!.byteLength).to.equal(1_200_000);
    expect(Buffer.compare(Buffer.from(wrapped!), Buffer.from(plain!))).to.equal(0);
    expect([...after!]).to.deep.equal([0, 0, 0, 7]);
    expect(await db.readBytes(`SELECT ${db.bytesColumn("convert_to('héllo', 'UTF8')")}`, [], ([row]) => Buffer.from(row![0]!).toString('utf8'))).to.equal('héllo');
    const [[empty, none]] = (await db.transaction((tx) => tx.queryBytes(`SELECT ${tx.bytesColumn("''::bytea")}, ${tx.bytesColumn('NULL::bytea')}`))) as [(Uint8Array | null)[]];
    expect([empty!.byteLength, none]).to.deep.equal([0, null]);
  });

  it('sends a Uint8Array parameter in the binary format: raw bytea, a type\'s receive format', async () => {
    const bytes = new Uint8Array([0, 1, 92, 120, 255]); // a NUL, and "\x" that a text bytea would read as hex
    const packed = new Uint8Array([0, 2, 0, 0, 0x3f, 0x80, 0, 0, 0xc0, 0, 0, 0]); // vector [1,-2]: dim, unused, floats
    const { rows } = await db.query<{ b: number[]; v: string; n: number }>(
      'SELECT array(SELECT get_byte($1::bytea, i) FROM generate_series(0, length($1::bytea) - 1) i) AS b, $2::vector::text AS v, $3::integer AS n',
      [bytes, packed, 7],
      { prepare: true },
    );
    expect(rows).to.deep.equal([{ b: [0, 1, 92, 120, 255], v: '[1,-2]', n: 7 }]);
    const fields = await db.queryBytes('SELECT $1::bytea, int4send($2::integer)', [bytes, 9]);
    expect(fields.map((r) => r.map((f) => [...f!]))).to.deep.equal([[[0, 1, 92, 120, 255], [0, 0, 0, 9]]]);
  });

  it('decodes the column types as query() does', async () => {
    const { rows } = await db.query<Record<string, unknown>>(SELECT, [[1, 9007199254740000], 'none', null], { prepare: true });
    expect(rows[0]).to.deep.include({ id: 1, name: 'one', tags: ['a', 'b'], ratio: 0.5, flag: true });
    expect(rows[0]!.at).to.be.instanceOf(Date);
    expect((rows[0]!.at as Date).toISOString()).to.equal('2026-01-02T03:04:05.000Z');
    expect(rows[1]).to.deep.include({ id: 9007199254740000, name: null, tags: ['with space', 'quote"d'], ratio: -1e300, flag: null });
  });

  it('reports a bad statement with the database message and stays usable', async () => {
    await expectRejection(db.query('SELECT nope FROM prepared_probe', [], { prepare: true }), /nope/);
    await expectRejection(db.query('SELECT 1 / $1::integer', [0], { prepare: true }), /division by zero/);
    expect((await db.query('SELECT count(*)::integer AS n FROM prepared_probe', [], { prepare: true })).rows).to.deep.equal([{ n: 3 }]);
  });

  it('runs inside a transaction, and a failure rolls the transaction back', async () => {
    await expectRejection(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO prepared_probe (id, name) VALUES ($1, $2)', [100, 'in tx'], { prepare: true });
        const seen = await tx.query('SELECT count(*)::integer AS n FROM prepared_probe WHERE id = $1', [100], { prepare: true });
        expect(seen.rows).to.deep.equal([{ n: 1 }]);
        await tx.query('SELECT 1 / $1::integer', [0], { prepare: true });
      }),
      /division by zero/,
    );
    const after = await db.query('SELECT count(*)::integer AS n FROM prepared_probe WHERE id = $1', [100], { prepare: true });
    expect(after.rows).to.deep.equal([{ n: 0 }]);
  });
});

describe('PGlite prepared statements', () => {
  let db: SqlDatabase;

  beforeEach(async () => {
    db = await openPglite(null);
    await db.exec(ROWS);
  });
  afterEach(() => db.close());

  const preparedCount = async () =>
    (await db.query<{ n: number }>(`SELECT count(*)::integer AS n FROM pg_prepared_statements WHERE name LIKE 'filesift_%'`)).rows[0]!.n;

  it('prepares a text once and reuses it', async () => {
    expect(await preparedCount()).to.equal(0);
    for (let i = 0; i < 3; i++) await db.query(SELECT, [[1], null, null], { prepare: true });
    expect(await preparedCount()).to.equal(1);
    await db.query(SELECT, [[2], null, null]); // unnamed: not kept
    expect(await preparedCount()).to.equal(1);
  });

  it('waits for a transaction in progress instead of running inside it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const insertedYet = new Promise<void>((resolve) => (inserted = resolve));
    const tx = db.transaction(async (t) => {
      await t.query('INSERT INTO prepared_probe (id) VALUES (200)');
      inserted();
      await gate;
      throw new Error('roll back');
    });
    await insertedYet;
    // Issued while the transaction is open: it must not see (or join) the transaction's uncommitted row.
    const count = db.query<{ n: number }>('SELECT count(*)::integer AS n FROM prepared_probe WHERE id = $1', [200], { prepare: true });
    release();
    await expectRejection(tx, /roll back/);
    expect((await count).rows).to.deep.equal([{ n: 0 }]);
  });
});

describe('PgliteStatements', () => {
  let pglite: PGlite;

  beforeEach(async () => {
    pglite = await PGlite.create();
  });
  afterEach(() => pglite.close());

  const names = async () =>
    (await pglite.query<{ statement: string }>(`SELECT statement FROM pg_prepared_statements ORDER BY statement`)).rows.map((r) => r.statement);

  it('closes the least recently used statement beyond its capacity', async () => {
    const statements = new PgliteStatements(pglite, 2);
    await statements.run('SELECT 1 AS a', []);
    await statements.run('SELECT 2 AS b', []);
    await statements.run('SELECT 1 AS a', []); // used again: now the most recent
    await statements.run('SELECT 3 AS c', []);
    expect(statements.size).to.equal(2);
    expect(await names()).to.deep.equal(['SELECT 1 AS a', 'SELECT 3 AS c']);
    // The closed one is prepared again when it comes back.
    expect((await statements.run<{ b: number }>('SELECT 2 AS b', [])).rows).to.deep.equal([{ b: 2 }]);
    expect(await names()).to.deep.equal(['SELECT 2 AS b', 'SELECT 3 AS c']);
  });

  it('rejects a parameter count that does not match the statement', async () => {
    const statements = new PgliteStatements(pglite, 2);
    await expectRejection(statements.run('SELECT $1::integer + $2::integer AS n', [1]), /takes 2 parameters, got 1/);
    expect((await statements.run<{ n: number }>('SELECT $1::integer + $2::integer AS n', [1, 2])).rows).to.deep.equal([{ n: 3 }]);
  });

  it('reports the affected row count of a write', async () => {
    const statements = new PgliteStatements(pglite, 2);
    await pglite.exec('CREATE TABLE t (x integer)');
    const inserted = await statements.run('INSERT INTO t SELECT generate_series(1, $1::integer)', [4]);
    expect(inserted.affectedRows).to.equal(4);
  });
});
