/**
 * Compaction of the keyword index's blocks against a real database: the blocks it writes are byte for byte those
 * of one seal of the live postings, departed documents' postings are gone with their keyword_dead rows, searches
 * answer the same before, during and after, and a seal during a copy voids it.
 */
import { expect } from 'chai';
import { insertFiles, type FileRowInput } from '../../../bench/lib/keyword-db.js';
import { compactKeywordIndex, packPostings, withinPostings, type CompactionProgress, type CompactionSlice, type CompactionStart } from '../../../src/store/keyword/compaction.js';
import { POSTING_BYTES } from '../../../src/store/keyword/layout.js';
import { searchKeyword } from '../../../src/store/keyword/search.js';
import { parseSearchQuery } from '../../../src/search/query-parser.js';
import type { SqlDatabase } from '../../../src/store/sql.js';
import { forEachEngine } from '../../helpers/engines.js';
import { openKeywordTestDb } from './fixture.js';

const QUERIES = ['common', 'rare7 common', 'w1 w2', 'u13', 'w0 -w1', '"common w2"', 'nothing'];

function rows(from: number, to: number): FileRowInput[] {
  return Array.from({ length: to - from }, (_, k) => {
    const i = from + k;
    return { path: `/d/${i}.txt`, filename: `${i}.txt`, extension: 'txt', content: `common w${i % 3} ${'filler '.repeat(i % 5)}u${i % 17} rare${i}` };
  });
}

async function seal(db: SqlDatabase, maxDocs: number): Promise<number> {
  return (await db.query<{ n: number }>('SELECT docs_sealed AS n FROM filesift_keyword_seal($1)', [maxDocs])).rows[0]!.n;
}

async function blocks(db: SqlDatabase): Promise<string[]> {
  const { rows: found } = await db.query<{ row: string }>(
    `SELECT concat_ws(' ', lexeme, first_doc, last_doc, n, max_tf_a, max_tf_b, max_tf_c, max_tf_d, min_len_a, min_len_b, min_len_c, min_len_d, encode(postings, 'hex')) AS row
     FROM keyword_blocks ORDER BY lexeme, first_doc`,
  );
  return found.map((r) => r.row);
}

async function count(db: SqlDatabase, sql: string): Promise<number> {
  return (await db.query<{ n: number }>(sql)).rows[0]!.n;
}

async function answers(db: SqlDatabase): Promise<string> {
  const out: unknown[] = [];
  for (const q of QUERIES) out.push((await searchKeyword(db, parseSearchQuery(q), { limit: 20 })).hits);
  return JSON.stringify(out);
}

async function compactAll(
  db: SqlDatabase,
  slice: number | CompactionSlice,
  start: CompactionStart = 'now',
  between?: () => Promise<void>,
  dueAfterDocs?: number,
  budgetMs?: number,
): Promise<CompactionProgress[]> {
  const steps: CompactionProgress[] = [];
  for (let step: CompactionStart = start; ; step = 'no') {
    const progress = await compactKeywordIndex(db, typeof slice === 'number' ? { blocks: slice } : slice, step, dueAfterDocs, budgetMs);
    steps.push(progress);
    if (progress.state !== 'running') return steps;
    await between?.();
  }
}

/** The same writes in the same order: 300 files, 40 of them re-indexed and 10 deleted, sealed as `sealing` says. */
async function build(db: SqlDatabase, sealing: (phase: number) => Promise<void>): Promise<void> {
  const ids = await insertFiles(db, rows(0, 150));
  await sealing(0);
  for (let i = 0; i < 40; i++) await db.query(`UPDATE files SET content = 'common changed w1 u3' || $2 WHERE id = $1`, [ids[i * 3]!, ` again${i}`]);
  await db.query('DELETE FROM files WHERE id = ANY($1::bigint[])', [ids.slice(140, 150)]);
  await sealing(1);
  await insertFiles(db, rows(150, 300));
  await sealing(2);
}

describe('packPostings', () => {
  it('packs records 128 a block in document order, leaving the dead out, with the bounds of what is kept', () => {
    const record = (doc: number, tf: number, len: number): Uint8Array => {
      const bytes = new Uint8Array(POSTING_BYTES);
      const v = new DataView(bytes.buffer);
      v.setInt32(0, doc);
      v.setInt16(4, tf);
      v.setInt16(10, tf + 1);
      v.setInt16(12, len);
      v.setInt32(18, len * 10);
      return bytes;
    };
    const join = (parts: Uint8Array[]): Uint8Array => Uint8Array.from(parts.flatMap((p) => [...p]));
    const a = join(Array.from({ length: 100 }, (_, i) => record(i + 1, i % 7, 50 + i)));
    const b = join(Array.from({ length: 60 }, (_, i) => record(200 + i, 3, 5 + i)));
    const packed = packPostings([a, b], new Set([1, 2, 250]));
    expect(packed.map((p) => p.n)).to.deep.equal([128, 29]);
    expect(packed[0]!.first).to.equal(3);
    expect(packed[1]!.last).to.equal(259);
    expect(packed[0]!.maxTf).to.deep.equal([6, 0, 0, 7]);
    expect(packed[1]!.minLen).to.deep.equal([35, 0, 0, 350]); // docs 230..259 but 250: the shortest is doc 230's
    // The records themselves: every live one, byte for byte, in order (dead ones inside a run and at its ends).
    const live = [
      ...Array.from({ length: 98 }, (_, i) => record(i + 3, (i + 2) % 7, 52 + i)),
      ...Array.from({ length: 60 }, (_, i) => record(200 + i, 3, 5 + i)).filter((_, i) => i !== 50),
    ];
    expect([...join(packed.map((p) => p.postings))]).to.deep.equal([...join(live)]);
    expect(packed[0]!.postings.byteLength).to.equal(128 * POSTING_BYTES);
    const edges = packPostings([b], new Set([200, 259]));
    expect([...join(edges.map((p) => p.postings))]).to.deep.equal([...b.subarray(POSTING_BYTES, 59 * POSTING_BYTES)]);
    expect(edges[0]!.first).to.equal(201);
    expect(edges[0]!.last).to.equal(258);
    expect(() => packPostings([b, a], new Set())).to.throw(/order/);
    expect(packPostings([a], new Set(Array.from({ length: 100 }, (_, i) => i + 1)))).to.deep.equal([]);
  });
});

describe('withinPostings', () => {
  it('keeps whole words while their postings fit, the first word however many it has', () => {
    const block = (lexeme: string, n: number) => ({ lexeme, postings: new Uint8Array(n * POSTING_BYTES) });
    const blocks = [block('a', 3), block('a', 2), block('b', 4), block('c', 1), block('c', 1), block('d', 9)];
    const words = (max: number) => withinPostings(blocks, max).blocks.map((b) => b.lexeme).join('');
    expect(words(1)).to.equal('aa'); // the first word alone is over: it goes whole
    expect(words(5)).to.equal('aa');
    expect(words(8)).to.equal('aa');
    expect(words(9)).to.equal('aab');
    expect(words(11)).to.equal('aabcc');
    expect(words(19)).to.equal('aabcc');
    expect(words(20)).to.equal('aabccd');
    expect(withinPostings(blocks, 11).postings).to.equal(11);
    expect(withinPostings(blocks, 1).postings).to.equal(5);
    expect(withinPostings([], 10)).to.deep.equal({ blocks: [], postings: 0 });
  });
});

forEachEngine('keyword index compaction', (engine) => {
  let fragmented: { db: SqlDatabase; close: () => Promise<void> };
  let reference: { db: SqlDatabase; close: () => Promise<void> };
  beforeEach(async () => {
    fragmented = await openKeywordTestDb(engine);
    reference = await openKeywordTestDb(engine);
    // Sealed in slices of 7 documents all along: re-indexed and deleted files leave dead postings in blocks.
    await build(fragmented.db, async () => {
      while ((await seal(fragmented.db, 7)) > 0);
    });
    // Nothing sealed until the end, then all at once: the blocks compaction must arrive at.
    await build(reference.db, async (phase) => {
      if (phase === 2) await seal(reference.db, 100_000);
    });
  });
  afterEach(async () => {
    await fragmented.close();
    await reference.close();
  });

  it('packs each lexeme 128 a block, byte for byte as one seal of its live postings, and forgets the dead ones', async () => {
    const { db } = fragmented;
    const before = await answers(db);
    expect(before).to.equal(await answers(reference.db));
    const blocksBefore = await count(db, 'SELECT count(*)::int AS n FROM keyword_blocks');
    expect(await count(db, 'SELECT count(*)::int AS n FROM keyword_dead')).to.be.greaterThan(0);

    const steps = await compactAll(db, 40, 'now', async () => {
      expect(await answers(db)).to.equal(before);
    });
    expect(steps.at(-1)!.state).to.equal('done');
    expect(steps.filter((s) => s.state === 'running').length).to.be.greaterThan(3); // really in slices
    expect(await blocks(db)).to.deep.equal(await blocks(reference.db));
    const blocksAfter = await count(db, 'SELECT count(*)::int AS n FROM keyword_blocks');
    expect(blocksAfter).to.be.lessThan(blocksBefore / 2);
    expect(await count(db, 'SELECT count(*)::int AS n FROM keyword_dead')).to.equal(0);
    expect(await count(db, 'SELECT count(*)::int AS n FROM keyword_compaction_dead')).to.equal(0);
    expect(await count(db, `SELECT count(*)::int AS n FROM pg_class WHERE relname = 'keyword_blocks_next'`)).to.equal(0);
    expect(await answers(db)).to.equal(before);
    // The swapped-in table is the index in every way: its key, and the next seal writes into it.
    expect(await count(db, `SELECT count(*)::int AS n FROM pg_indexes WHERE tablename = 'keyword_blocks' AND indexname = 'keyword_blocks_pkey'`)).to.equal(1);
    await insertFiles(db, rows(300, 310));
    await insertFiles(reference.db, rows(300, 310));
    await seal(db, 100);
    await seal(reference.db, 100);
    expect(await answers(db)).to.equal(await answers(reference.db));
  });

  it('stops a slice that ran over its time budget after its first quarter, and arrives at the same blocks', async () => {
    const { db } = fragmented;
    const before = await answers(db);
    const blocksBefore = await count(db, 'SELECT count(*)::int AS n FROM keyword_blocks');
    // A budget no statement keeps to: every slice copies its first quarter only (whole lexemes: about 10 blocks, more
    // when one word alone has more), so it takes well over the blocks ÷ 40 slices an untimed compaction would.
    const steps = await compactAll(db, 40, 'now', undefined, undefined, 1e-9);
    expect(steps.at(-1)!.state).to.equal('done');
    const running = steps.filter((s) => s.state === 'running');
    expect(running.reduce((n, s) => n + s.blocksRead, 0)).to.equal(blocksBefore); // every block read once
    expect(running.length).to.be.greaterThan((blocksBefore / 40) * 1.5);
    expect(await blocks(db)).to.deep.equal(await blocks(reference.db));
    expect(await answers(db)).to.equal(before);
    expect(await count(db, 'SELECT count(*)::int AS n FROM keyword_dead')).to.equal(0);
  });

  it('copies no more postings a slice than asked (whole words: one alone may have more), arriving at the same blocks', async () => {
    const { db } = fragmented;
    const before = await answers(db);
    const postings = await count(db, 'SELECT sum(n)::int AS n FROM keyword_blocks');
    const perWord = (await db.query<{ n: number }>('SELECT sum(n)::int AS n FROM keyword_blocks GROUP BY lexeme')).rows.map((r) => r.n);
    const cap = 25;
    // Blocks alone would copy everything in one or two slices; the postings bound cuts them.
    const steps = await compactAll(db, { blocks: 10_000, postings: cap }, 'now', async () => {
      expect(await answers(db)).to.equal(before);
    });
    expect(steps.at(-1)!.state).to.equal('done');
    const running = steps.filter((s) => s.state === 'running');
    expect(running.reduce((n, s) => n + s.postingsRead, 0)).to.equal(postings); // every posting read once
    const over = running.filter((s) => s.postingsRead > cap);
    expect(over.length, 'slices over the bound: one word each').to.be.at.most(perWord.filter((n) => n > cap).length);
    for (const s of over) expect(perWord).to.include(s.postingsRead);
    const rest = postings - over.reduce((n, s) => n + s.postingsRead, 0);
    expect(running.length - over.length).to.be.at.least(Math.ceil(rest / cap));
    expect(await blocks(db)).to.deep.equal(await blocks(reference.db));
    expect(await answers(db)).to.equal(before);
    // With a time budget the first quarter of the bound goes first: the same blocks again.
    await compactAll(reference.db, { blocks: 10_000, postings: cap }, 'now', undefined, undefined, 1e-9);
    expect(await blocks(reference.db)).to.deep.equal(await blocks(db));
  });

  it('refuses a time budget that is not a positive number of milliseconds', async () => {
    for (const budget of [0, -1, Number.NaN]) {
      let message = '';
      await compactKeywordIndex(fragmented.db, { blocks: 40 }, 'now', 1, budget).catch((err: Error) => (message = err.message));
      expect(message).to.match(/bad time budget/);
    }
  });

  it('keeps a document that leaves during the copy listed as dead, and its postings, until the next compaction', async () => {
    const { db } = fragmented;
    const leave = `UPDATE files SET content = 'common moved' WHERE path = '/d/0.txt'`;
    let left = false;
    await compactAll(db, 40, 'now', async () => {
      if (left) return;
      left = true;
      // After the first slice, which copied the first lexeme ('0', from the file name): the document leaves, and
      // its posting of '0' is in the copy already, so its keyword_dead row must outlive the swap.
      await db.query(leave);
    });
    expect(await count(db, `SELECT count(*)::int AS n FROM keyword_dead WHERE lexeme = '0'`)).to.equal(1);
    await reference.db.query(leave);
    expect(await answers(db)).to.equal(await answers(reference.db));
    for (const { db: each } of [fragmented, reference]) while ((await seal(each, 100)) > 0);
    await compactAll(db, 1000);
    expect(await count(db, 'SELECT count(*)::int AS n FROM keyword_dead')).to.equal(0);
    expect(await answers(db)).to.equal(await answers(reference.db));
  });

  it('voids a copy when a seal moves the watermark under it, and starts again when asked', async () => {
    const { db } = fragmented;
    expect((await compactKeywordIndex(db, { blocks: 40 }, 'now')).state).to.equal('running');
    await insertFiles(db, rows(300, 305));
    await seal(db, 100);
    expect((await compactKeywordIndex(db, { blocks: 40 }, 'no')).state).to.equal('idle');
    expect(await count(db, `SELECT count(*)::int AS n FROM pg_class WHERE relname = 'keyword_blocks_next'`)).to.equal(0);
    expect(await count(db, 'SELECT count(*)::int AS n FROM keyword_seal WHERE compaction_upto IS NULL')).to.equal(1);
    expect((await compactAll(db, 40)).at(-1)!.state).to.equal('done');
    // The same writes compacted without interruption (one seal of every live posting, as the first test shows).
    await insertFiles(reference.db, rows(300, 305));
    await seal(reference.db, 100);
    await compactAll(reference.db, 100_000);
    expect(await blocks(db)).to.deep.equal(await blocks(reference.db));
  });

  it('is due once the sealed range has grown by the given documents and doubled since the last compaction', async () => {
    const { db } = fragmented;
    // 300 documents sealed (some ordinals used twice by re-indexing), none compacted yet.
    expect((await compactKeywordIndex(db, { blocks: 10_000 }, 'due', 1000)).state).to.equal('idle');
    expect((await compactKeywordIndex(db, { blocks: 10_000 }, 'no', 1)).state).to.equal('idle');
    expect((await compactAll(db, 10_000, 'due')).at(-1)!.state).to.equal('idle');
    expect((await compactAll(db, 10_000, 'due', undefined, 100)).at(-1)!.state).to.equal('done');
    // Just compacted: not due again until the sealed range doubles.
    expect((await compactKeywordIndex(db, { blocks: 10_000 }, 'due', 100)).state).to.equal('idle');
  });
});
