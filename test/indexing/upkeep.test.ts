/**
 * src/indexing/upkeep.ts on a real database (PGlite, and PostgreSQL with TEST_DATABASE_URL): after a run, every
 * new document of the keyword index is sealed into blocks in slices, the blocks are compacted once due, and
 * statistics are refreshed one table at a time, the vector index's tail is packed into its lists; searches answer
 * the same before and after.
 */
import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { insertFiles } from '../../bench/lib/keyword-db.js';
import { IndexUpkeep } from '../../src/indexing/upkeep.js';
import { LARGE_DOCUMENT_POSTINGS } from '../../src/store/keyword/maintenance.js';
import { createLogger } from '../../src/logger.js';
import { parseSearchQuery } from '../../src/search/query-parser.js';
import type { SqlDatabase } from '../../src/store/sql.js';
import { createStore, type StoreApi } from '../../src/store/store.js';
import { forEachEngine } from '../helpers/engines.js';
import { indexedFileWrite } from '../helpers/store.js';
import { openKeywordTestDb } from '../store/keyword/fixture.js';

const WORDS = ['amber', 'basalt', 'cobalt', 'dune', 'ember', 'fjord', 'garnet', 'harbor', 'indigo', 'jasper'];

forEachEngine('IndexUpkeep', (engine) => {
  let db: SqlDatabase;
  let store: StoreApi;
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ db, close } = await openKeywordTestDb(engine));
    store = createStore(db);
  });
  afterEach(() => close());

  it('seals every new document after a run, in slices, and the search answers the same', async () => {
    const files = Array.from({ length: 300 }, (_, i) => ({
      path: `/d/${i}.txt`,
      filename: `${i}.txt`,
      extension: 'txt',
      content: `${WORDS[i % 10]} ${WORDS[(i * 7) % 10]} ${WORDS[(i * 3) % 10]} note ${i}`,
    }));
    await insertFiles(db, files);
    const search = async () => (await store.search.keyword(parseSearchQuery('amber garnet'), { limit: 20 })).hits;
    const before = await search();
    expect(before).to.have.length(20);
    expect(await store.search.unsealedKeywords()).to.equal(300);

    // A 1 ms target shrinks the slices to their floor: several slices, each with a pause for searches.
    const upkeep = new IndexUpkeep({ store, logger: createLogger('silent'), sliceMs: 1, pauseMs: 1, checkEveryMs: 0 });
    try {
      upkeep.written(300, true);
      await upkeep.idle();
      expect(await store.search.unsealedKeywords()).to.equal(0);
      expect(upkeep.state.sealed).to.equal(300);
      const after = await search();
      expect(after).to.deep.equal(before);
    } finally {
      await upkeep.close();
    }
  });

  it("packs the vector index's tail into its lists in slices once past its threshold, and all of it at a run's end", async () => {
    const vectorOf = (i: number): Float32Array => Float32Array.from({ length: 8 }, (_, d) => (d === i % 8 ? 1 : 0.01 * d));
    const write = (i: number) => store.files.saveIndexed(indexedFileWrite(`/v/${i}.txt`, [vectorOf(i), vectorOf(i + 1)], { embeddingModel: 'm8' }));
    for (let i = 0; i < 30; i++) await write(i);
    const nearest = async () => (await store.search.semantic({ query: parseSearchQuery('x'), filters: {}, vector: vectorOf(3), model: 'm8', dimension: 8, limit: 10, listLimit: 1 })).map((h) => h.id);
    const before = await nearest();
    const upkeep = new IndexUpkeep({ store, logger: createLogger('silent'), sliceMs: 1, pauseMs: 1, checkEveryMs: 0, tailThreshold: 1, vectorTailThreshold: 100 });
    try {
      // 60 vectors, fewer than the threshold: a pass during a run leaves them to the searches' exact comparison.
      upkeep.written(30, false);
      await upkeep.idle();
      expect(await store.search.unpackedVectors()).to.equal(60);
      expect(upkeep.state.packedVectors).to.equal(0);
      for (let i = 30; i < 60; i++) await write(i);
      upkeep.written(30, false);
      await upkeep.idle();
      expect(await store.search.unpackedVectors(), 'past the threshold: packed').to.equal(0);
      expect(upkeep.state.packedVectors).to.equal(120);
      await write(60);
      upkeep.written(1, true);
      await upkeep.idle();
      expect(await store.search.unpackedVectors(), "a run's end packs the rest").to.equal(0);
      expect(upkeep.state.packedVectors).to.equal(122);
      expect(await nearest()).to.include.members(before.slice(0, 3));
      expect(upkeep.state.longestSliceMs).to.be.greaterThan(0);
    } finally {
      await upkeep.close();
    }
  });

  it('seals a document of more distinct words than a seal call takes over several calls, and goes on past it', async () => {
    // 10,000 distinct words and big, txt, amber, note: LARGE_DOCUMENT_POSTINGS (8,192) a call, then the rest.
    const big = Array.from({ length: 10_000 }, (_, i) => `zq${i.toString(36)}x`).join(' ');
    const files = [
      ...Array.from({ length: 20 }, (_, i) => ({ path: `/d/${i}.txt`, filename: `${i}.txt`, extension: 'txt', content: `${WORDS[i % 10]} note` })),
      { path: '/d/big.txt', filename: 'big.txt', extension: 'txt', content: `${big} amber note` },
      ...Array.from({ length: 20 }, (_, i) => ({ path: `/d/${20 + i}.txt`, filename: `${20 + i}.txt`, extension: 'txt', content: `${WORDS[i % 10]} note` })),
    ];
    await insertFiles(db, files);
    const search = async () => Promise.all(['amber note', 'zq0x zq7prx', 'zq2s0x -cobalt'].map(async (q) => (await store.search.keyword(parseSearchQuery(q), { limit: 20 })).hits));
    const before = await search();
    expect(before.map((hits) => hits.length)).to.deep.equal([20, 1, 1]);
    const seals: string[] = [];
    const logged = createLogger('silent');
    const upkeep = new IndexUpkeep({ store, logger: logged, pauseMs: 1, checkEveryMs: 0 });
    const sealKeywords = store.search.sealKeywords.bind(store.search);
    const bounds: boolean[] = [];
    store.search.sealKeywords = async (maxDocs, budgetMs, slicePostings) => {
      const progress = await sealKeywords(maxDocs, budgetMs, slicePostings);
      seals.push(`${progress.sealed}/${progress.postings}${progress.large ? ' large' : ''}`);
      // Every call is bounded by postings too, and a slice of documents keeps to it (one document at least).
      expect(slicePostings).to.be.a('number').within(1, 4_194_304);
      if (!progress.large) bounds.push(progress.sealed <= 1 || progress.postings <= slicePostings!);
      return progress;
    };
    try {
      upkeep.written(files.length, true);
      await upkeep.idle();
      expect(await store.search.unsealedKeywords()).to.equal(0);
      expect(upkeep.state.sealed).to.equal(41);
      // The 20 before it, then the large one alone (its 10,000 words, amber, note, big, txt), then the 20 after.
      const calls = Math.ceil(10_004 / LARGE_DOCUMENT_POSTINGS);
      expect(seals.filter((s) => s.endsWith('large'))).to.deep.equal([
        ...Array.from({ length: calls - 1 }, () => `0/${LARGE_DOCUMENT_POSTINGS} large`),
        `1/${10_004 - (calls - 1) * LARGE_DOCUMENT_POSTINGS} large`,
      ]);
      expect(calls).to.be.greaterThan(1);
      expect(bounds).to.not.be.empty.and.not.include(false);
      expect(await search()).to.deep.equal(before);
    } finally {
      await upkeep.close();
    }
  });

  it('logs a seal that held the store over a second, with what its slice held, and no other', async () => {
    await insertFiles(db, Array.from({ length: 30 }, (_, i) => ({ path: `/s/${i}.txt`, filename: `${i}.txt`, extension: 'txt', content: `${WORDS[i % 10]} note` })));
    const lines: { level: number; msg: string; ms?: number; sealed?: number; bound?: { docs: number; postings: number } }[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as (typeof lines)[number]);
        done();
      },
    });
    const upkeep = new IndexUpkeep({ store, logger: pino({ level: 'info' }, stream), sliceMs: 1, pauseMs: 1, checkEveryMs: 0, tailThreshold: 1 });
    const sealKeywords = store.search.sealKeywords.bind(store.search);
    let calls = 0;
    // The store's own time is what the upkeep reads: the first call says it took 1.5 s.
    store.search.sealKeywords = async (...args) => {
      const progress = await sealKeywords(...args);
      return calls++ === 0 ? { ...progress, ms: 1_500 } : progress;
    };
    try {
      upkeep.written(30, true);
      await upkeep.idle();
      expect(calls).to.be.greaterThan(1);
      const slow = lines.filter((l) => l.msg === 'a keyword seal held the store over a second');
      expect(slow).to.have.length(1);
      expect(slow[0]).to.include({ level: 40, ms: 1_500 });
      expect(slow[0]!.sealed).to.be.a('number').greaterThan(0);
      expect(slow[0]!.bound).to.have.keys('docs', 'postings');
    } finally {
      await upkeep.close();
    }
  });

  it('compacts the blocks once due, after sealing, and finishes a compaction left running before it seals', async () => {
    const blocks = async (): Promise<number> => (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM keyword_blocks')).rows[0]!.n;
    const note = (i: number) => ({ path: `/d/${i}.txt`, filename: `${i}.txt`, extension: 'txt', content: `${WORDS[i % 10]} ${WORDS[(i * 3) % 10]} note` });
    await insertFiles(db, Array.from({ length: 300 }, (_, i) => note(i)));
    const search = async () => (await store.search.keyword(parseSearchQuery('amber note'), { limit: 20 })).hits;
    const before = await search();
    // Slices at their floor (16 documents): every common word gets a block per slice, until compaction packs them.
    const upkeep = new IndexUpkeep({ store, logger: createLogger('silent'), sliceMs: 1, pauseMs: 1, checkEveryMs: 0, compactAfter: 100 });
    try {
      upkeep.written(300, true);
      await upkeep.idle();
      expect(upkeep.state.sealed).to.equal(300);
      expect(upkeep.state.compactions).to.equal(1);
      // 11 words of up to 300 postings (3 blocks each at most) and 300 one-posting file-name numbers.
      expect(await blocks()).to.be.at.most(11 * 3 + 300);
      // The swapped-in table has statistics (a call of its own, not the swap's: 300 writes are below analyzeAfter).
      const analyzed = async () => (await db.query<{ n: number }>(`SELECT reltuples::int AS n FROM pg_class WHERE relname = 'keyword_blocks'`)).rows[0]!.n;
      expect(await analyzed()).to.equal(await blocks());
      expect(upkeep.state.analyzed).to.be.greaterThan(0);
      expect(await search()).to.deep.equal(before);

      // A compaction running (left by a restart), new files: the pass finishes it, then seals them.
      await insertFiles(db, Array.from({ length: 400 }, (_, i) => note(300 + i)));
      upkeep.written(400, true);
      await upkeep.idle();
      expect(await store.search.compactKeywords({ blocks: 16 }, 'now')).to.include({ state: 'running' });
      await insertFiles(db, [note(700)]);
      upkeep.written(1, true);
      await upkeep.idle();
      expect(await store.search.unsealedKeywords()).to.equal(0);
      expect(upkeep.state.compactions).to.equal(3); // the second due one, and the one left running
      expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM keyword_seal WHERE compaction_upto IS NULL')).rows[0]!.n).to.equal(1);
    } finally {
      await upkeep.close();
    }
  });

  it('checks for work while runs go on and once after, and at rest leaves the database alone', async () => {
    let calls = 0;
    const counted: Pick<StoreApi, 'search'> = {
      search: new Proxy(store.search, {
        get(target, key, receiver) {
          const value: unknown = Reflect.get(target, key, receiver);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            calls++;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      }),
    };
    // The checks are called here as the timer calls them (checkEveryMs 0: no timer), so nothing waits on the clock.
    const upkeep = new IndexUpkeep({ store: counted, logger: createLogger('silent'), checkEveryMs: 0, pauseMs: 1, tailThreshold: 50 });
    const checksAtRest = async (message: string): Promise<void> => {
      const atRest = calls;
      for (let i = 0; i < 5; i++) expect(upkeep.check(), message).to.equal(false);
      await upkeep.idle();
      expect(calls, message).to.equal(atRest);
    };
    try {
      // At start a check looks for what a restart left (unfinished texts, a compaction), then nothing is due.
      expect(upkeep.check()).to.equal(true);
      await upkeep.idle();
      expect(calls).to.be.greaterThan(0);
      await checksAtRest('no store call at rest');

      // A run: its files are written as it goes and it says nothing until its end, yet a check seals its tail.
      upkeep.runStarted();
      await insertFiles(db, Array.from({ length: 100 }, (_, i) => ({ path: `/r/${i}.txt`, filename: `${i}.txt`, extension: 'txt', content: `${WORDS[i % 10]} run` })));
      expect(upkeep.check()).to.equal(true);
      await upkeep.idle();
      expect(await store.search.unsealedKeywords()).to.equal(0);
      expect(upkeep.state.sealed).to.equal(100);

      // Its end: one more check, then rest again.
      upkeep.runEnded();
      const beforeEnd = calls;
      expect(upkeep.check()).to.equal(true);
      await upkeep.idle();
      expect(calls).to.be.greaterThan(beforeEnd);
      await checksAtRest('no store call at rest after the run');
    } finally {
      await upkeep.close();
    }
  });

  it('refreshes planner statistics after enough writes, one table a call', async () => {
    await insertFiles(db, Array.from({ length: 50 }, (_, i) => ({ path: `/s/${i}.txt`, filename: `${i}.txt`, extension: 'txt', content: 'slate' })));
    const tuples = async (): Promise<number> => (await db.query<{ n: number }>(`SELECT reltuples::float8 AS n FROM pg_class WHERE relname = 'files'`)).rows[0]!.n;
    expect(await tuples()).to.be.lessThan(50);
    const upkeep = new IndexUpkeep({ store, logger: createLogger('silent'), analyzeAfter: 10, checkEveryMs: 0 });
    try {
      upkeep.written(50, true);
      await upkeep.idle();
      expect(await tuples()).to.equal(50);
      expect(upkeep.state.analyzed).to.be.greaterThan(0);
    } finally {
      await upkeep.close();
    }
    expect(await store.search.analyze(1_000)).to.equal(null);
  });

  it('refreshes statistics while a long run goes on, from what its passes seal, before the run says what it wrote', async () => {
    const tuples = async (): Promise<number> => (await db.query<{ n: number }>(`SELECT reltuples::float8 AS n FROM pg_class WHERE relname = 'files'`)).rows[0]!.n;
    const upkeep = new IndexUpkeep({ store, logger: createLogger('silent'), analyzeAfter: 40, tailThreshold: 10, checkEveryMs: 0 });
    try {
      upkeep.runStarted();
      await insertFiles(db, Array.from({ length: 60 }, (_, i) => ({ path: `/r/${i}.txt`, filename: `${i}.txt`, extension: 'txt', content: `slate ${i}` })));
      expect(await tuples(), 'never analyzed').to.be.lessThan(0);
      // The periodic check during the run: it seals the 60 new documents, and that is reason enough to analyze.
      expect(upkeep.check()).to.equal(true);
      await upkeep.idle();
      expect(upkeep.state.sealed).to.equal(60);
      expect(await tuples()).to.equal(60);
      expect(upkeep.state.analyzed).to.be.greaterThan(0);
    } finally {
      upkeep.runEnded();
      await upkeep.close();
    }
  });
});
