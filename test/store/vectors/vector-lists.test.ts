import { expect } from 'chai';
import { parseSearchQuery } from '../../../src/search/query-parser.js';
import type { SqlDatabase } from '../../../src/store/sql.js';
import type { StoreApi } from '../../../src/store/store.js';
import { replaceChunks } from '../../../src/store/repositories/files.repository.js';
import { blockEntries, lastBlocksSql, vectorListsOf } from '../../../src/store/vectors/vector-lists.js';
import { seededRandom } from '../../../scripts/lib/seeded-random.js';
import { openPglite } from '../../../src/store/engines/pglite.js';
import { openPostgres } from '../../../src/store/engines/postgres.js';
import { loadMigrations, migrate } from '../../../src/store/migrate.js';
import { migrationsDir } from '../../../src/paths.js';
import { createStore } from '../../../src/store/store.js';
import { createScratchDatabase, forEachEngine, type ScratchDatabase } from '../../helpers/engines.js';
import { indexedFileWrite, openTestStore, type TestStore } from '../../helpers/store.js';

const DIM = 16;
const MODEL = 'model-16';

/** File i's vector: one of 8 directions (i % 8), a little noise around it; the same every run. */
function vectorOf(i: number): Float32Array {
  const next = seededRandom(1000 + i);
  const v = new Float32Array(DIM);
  v[i % 8] = 1;
  for (let d = 0; d < DIM; d++) v[d]! += 0.15 * (next() - 0.5);
  return v;
}

const write = (i: number, folder = '/d') => indexedFileWrite(`${folder}/f${i}.txt`, [vectorOf(i)], { embeddingModel: MODEL });

forEachEngine('vector lists in the store', (engine) => {
  let opened: TestStore;
  let db: SqlDatabase;
  let store: StoreApi;

  beforeEach(async () => {
    opened = await openTestStore(engine);
    ({ db, store } = opened);
    vectorListsOf(db).maxListSize = 8;
  });
  afterEach(() => opened.close());

  /** Runs the vector upkeep until it has nothing left, in slices of `batch`; answers the splits. */
  const upkeep = async (batch = 25): Promise<number> => {
    let splits = 0;
    for (let step = 0; step < 1000; step++) {
      const done = await store.search.maintainVectors(batch);
      splits += done.split;
      if (!done.more) return splits;
    }
    throw new Error('the vector upkeep never finished');
  };
  const count = async (sql: string, params: unknown[] = []): Promise<number> => (await db.query<{ n: number }>(sql, params as never)).rows[0]!.n;
  /** Entries a list holds, list by list. */
  const sizes = async (): Promise<number[]> =>
    (await db.query<{ n: number }>('SELECT (sum(octet_length(seqs)) / 8)::integer AS n FROM vector_blocks GROUP BY list ORDER BY list')).rows.map((r) => r.n);
  const idOf = async (path: string): Promise<number> => (await db.query<{ id: number }>('SELECT id FROM files WHERE path = $1', [path])).rows[0]!.id;
  // listLimit 1: a folder of a few files is not listed and scored apart (keyword/candidates.ts): the lists answer.
  const search = (i: number, limit = 5, filters = {}) =>
    store.search.semantic({ query: parseSearchQuery('anything'), filters, vector: vectorOf(i), model: MODEL, dimension: DIM, limit, listLimit: 1 });
  /** The exact answer: every chunk compared. */
  const exact = async (i: number, limit = 5): Promise<number[]> =>
    (
      await db.query<{ id: number }>(
        `SELECT file_id AS id FROM chunks GROUP BY file_id ORDER BY max(1 - (embedding::vector(${DIM}) <=> $1::vector)) DESC, file_id LIMIT $2`,
        [`[${Array.from(vectorOf(i)).join(',')}]`, limit],
      )
    ).rows.map((r) => Number(r.id));

  it('answers from the tail of new chunks before any upkeep, exactly', async () => {
    for (let i = 0; i < 40; i++) await store.files.saveIndexed(write(i));
    expect(await store.search.unpackedVectors()).to.equal(40);
    expect(await count('SELECT count(*)::integer AS n FROM vector_blocks')).to.equal(0);
    for (const i of [0, 13, 39]) expect((await search(i)).map((h) => h.id), `file ${i}`).to.deep.equal(await exact(i));
  });

  it('packs the tail into lists grown by splits, each within its bound, and finds the nearest files through them', async () => {
    for (let i = 0; i < 120; i++) await store.files.saveIndexed(write(i));
    const splits = await upkeep();
    expect(await store.search.unpackedVectors(), 'the tail packed').to.equal(0);
    const after = await sizes();
    expect(splits).to.be.at.least(after.length - 1);
    expect(after.length).to.be.at.least(120 / 8);
    expect(after.every((n) => n >= 1 && n <= 8), `list sizes ${after.join(' ')}`).to.equal(true);
    expect(after.reduce((a, b) => a + b, 0), 'every vector in one list').to.equal(120);
    // The tree as stored: a root, two children a split.
    const lists = after.length;
    expect(await count('SELECT count(*)::integer AS n FROM vector_nodes WHERE model = $1', [MODEL])).to.equal(2 * lists - 1);
    expect(await count('SELECT count(*)::integer AS n FROM vector_sums WHERE model = $1', [MODEL])).to.equal(lists);
    // Every list probed (96 at least, of ~20): the exact answer.
    for (const i of [0, 42, 119]) expect((await search(i)).map((h) => h.id), `file ${i}`).to.deep.equal(await exact(i));
  });

  it('keeps the lists a search read for the next searches on PGlite (none on a server), none past an upkeep step', async () => {
    for (let i = 0; i < 120; i++) await store.files.saveIndexed(write(i));
    await upkeep();
    const lists = vectorListsOf(db);
    expect(lists.cachedBytes).to.equal(0);
    // Every list probed: the first search reads them all, the second scores them from memory on PGlite.
    for (const round of [1, 2]) {
      for (const i of [0, 42, 119]) expect((await search(i)).map((h) => h.id), `file ${i}, round ${round}`).to.deep.equal(await exact(i));
    }
    if (engine === 'pglite') expect(lists.cachedBytes, 'every entry, 8 + 20 bytes each').to.equal(120 * (8 + 4 + DIM));
    else expect(lists.cachedBytes).to.equal(0);
    // New files packed into the lists just kept: a kept list left as it was would miss them (the tail is empty).
    for (let i = 120; i < 150; i++) await store.files.saveIndexed(write(i));
    await upkeep();
    expect(await store.search.unpackedVectors()).to.equal(0);
    expect(lists.cachedBytes, 'emptied by the upkeep').to.equal(0);
    for (const i of [120, 133, 149]) {
      const found = (await search(i)).map((h) => h.id);
      expect(found, `file ${i}`).to.deep.equal(await exact(i));
      expect(found).to.include(await idOf(`/d/f${i}.txt`));
    }
  });

  it('keeps every block of a list but its last full as packs append to it', async () => {
    vectorListsOf(db).maxListSize = 1000; // no splits: one list
    const perBlock = blockEntries(DIM);
    for (let i = 0; i < perBlock + 5; i++) await store.files.saveIndexed(write(i));
    await upkeep(7); // appends of 7: the last block read back and rewritten each time
    const blocks = (await db.query<{ block: number; n: number }>('SELECT block, (octet_length(seqs) / 8)::integer AS n FROM vector_blocks ORDER BY block')).rows;
    expect(blocks).to.deep.equal([
      { block: 0, n: perBlock },
      { block: 1, n: 5 },
    ]);
    const seqs = await count('SELECT count(DISTINCT seq)::integer AS n FROM chunks');
    expect(seqs).to.equal(perBlock + 5);
    for (const i of [1, perBlock + 4]) expect((await search(i))[0]?.id).to.equal(await idOf(`/d/f${i}.txt`));
  });

  it("reads a pack's last blocks by one index probe each, however many blocks the model has (no statistics)", async () => {
    // A hash of every block of the model made each pack read the whole index (PGlite gathers no statistics by
    // itself): the statement must probe the primary key for each (list, block) and nothing else.
    await db.exec(`INSERT INTO vector_blocks (model, dim, list, block, seqs, vecs)
                   SELECT '${MODEL}', ${DIM}, g / 4, g % 4, '\\x00'::bytea, '\\x00'::bytea FROM generate_series(0, 11999) AS g`);
    const { rows } = await db.query<Record<string, string>>(`EXPLAIN (FORMAT TEXT) ${lastBlocksSql(db.bytesColumn('b.vecs'))}`, [MODEL, DIM, [5, 700, 2999], [3, 0, 1]]);
    const plan = rows.map((r) => Object.values(r)[0]).join('\n');
    expect(plan).to.match(/Index Cond: .*list = u\.list.*block = u\.block/);
    expect(plan).not.to.match(/Hash|Seq Scan|Merge Join/);
    const found = await db.queryBytes(lastBlocksSql(db.bytesColumn('b.vecs')), [MODEL, DIM, [5, 700, 2999, 3000], [3, 0, 1, 0]]);
    expect(found.map((r) => new DataView(r[0]!.buffer, r[0]!.byteOffset, 4).getInt32(0))).to.have.members([5, 700, 2999]);
  });

  it('reads the same lists back after a restart (the tree and the sums as stored), and new chunks join them', async () => {
    for (let i = 0; i < 60; i++) await store.files.saveIndexed(write(i));
    await upkeep();
    const lists = vectorListsOf(db);
    const probe = () =>
      db.transaction(async (tx) => {
        const found = await lists.candidates(tx, MODEL, DIM, vectorOf(7), 3);
        return { scored: found.scored, probes: found.probes, everyList: found.everyList, seqs: found.best(10) };
      });
    const before = await probe();
    lists.forget();
    expect(await probe()).to.deep.equal(before);
    for (let i = 200; i < 230; i++) await store.files.saveIndexed(write(i));
    lists.forget(); // the new chunks packed by a tree read from the database
    await upkeep();
    expect((await sizes()).reduce((a, b) => a + b, 0)).to.equal(90);
    expect((await search(200)).map((h) => h.id)).to.deep.equal(await exact(200));
  });

  it('widens to more lists when the filters leave too few files in the nearest ones', async () => {
    for (let i = 0; i < 120; i++) await store.files.saveIndexed(write(i));
    // Three files of one direction in a folder of their own: far from a query of another direction.
    for (const i of [3, 11, 19]) await store.files.saveIndexed(write(i, '/far'));
    await upkeep();
    vectorListsOf(db).firstProbes = 2; // of 16 or more: the folder's files are in none of the nearest two
    const hits = await search(0, 3, { directory: '/far' });
    expect(hits.map((h) => h.id).sort()).to.deep.equal([await idOf('/far/f3.txt'), await idOf('/far/f11.txt'), await idOf('/far/f19.txt')].sort());
  });

  it("drops a deleted or rewritten file's old entries (at once from answers, from the blocks at the next split), and packs a copy", async () => {
    for (let i = 0; i < 40; i++) await store.files.saveIndexed(write(i));
    await upkeep();
    const gone = await idOf('/d/f9.txt');
    await store.files.removePaths(['/d/f9.txt']);
    expect((await search(9)).map((h) => h.id)).to.not.include(gone);
    // Written again with another vector: the old entry answers nothing, the new chunk is in the tail.
    const moved = await idOf('/d/f17.txt');
    await store.files.saveIndexed({ ...write(17), chunks: write(42).chunks });
    expect((await search(17)).map((h) => h.id)).to.deep.equal(await exact(17));
    expect((await search(17)).map((h) => h.id)[0]).to.not.equal(moved);
    const source = await idOf('/d/f10.txt');
    await store.files.saveCopy(source, write(10, '/copy').facts, 1, null);
    await upkeep();
    expect((await search(10, 2)).map((h) => h.id).sort()).to.deep.equal([source, await idOf('/copy/f10.txt')].sort());
    // Enough new vectors for every list to split again: the splits keep only the entries of chunks that exist.
    for (let i = 300; i < 460; i++) await store.files.saveIndexed(write(i));
    await upkeep();
    const entries = (await sizes()).reduce((a, b) => a + b, 0);
    const chunks = await count('SELECT count(*)::integer AS n FROM chunks');
    expect(entries).to.be.at.least(chunks);
    expect(entries - chunks, 'stale entries left (lists not split since)').to.be.at.most(2);
  });

  if (engine === 'postgres') {
    it('waits for chunks still being written before it packs past them (writes run side by side on a server)', async () => {
      for (let i = 0; i < 20; i++) await store.files.saveIndexed(write(i));
      const id = await store.files.saveIndexed(indexedFileWrite('/d/late.txt', [], { embeddingModel: MODEL }));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let written!: () => void;
      const inFlight = new Promise<void>((resolve) => (written = resolve));
      // A write whose chunk takes a sequence number and stays uncommitted until released.
      const writing = db.transaction(async (tx) => {
        await replaceChunks(tx, 'postgres', id, { embeddingModel: MODEL, chunks: write(55).chunks }, false);
        written();
        await released;
      });
      await inFlight;
      const packing = store.search.maintainVectors(1000);
      // The pack waits on the write's lock: seen waiting before it finishes (conditions, not a count or a delay, so a
      // loaded machine only makes this slower). A pack that finished first did not wait for the write.
      let finished = false;
      void packing.then(
        () => (finished = true),
        () => (finished = true),
      );
      for (;;) {
        const waiting = await count("SELECT count(*)::integer AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
        if (waiting > 0) break;
        if (finished) {
          release(); // the write's transaction ends either way
          await writing;
          throw new Error('the pack never waited for the write');
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      release();
      await writing;
      await packing;
      await upkeep();
      expect(await store.search.unpackedVectors()).to.equal(0);
      expect((await sizes()).reduce((a, b) => a + b, 0), 'the late chunk packed too').to.equal(21);
    });
  }

  it("deletes a model's lists once no file is embedded by it any more, and grows the new model's", async () => {
    for (let i = 0; i < 40; i++) await store.files.saveIndexed(write(i));
    await upkeep();
    const other = 'model-other';
    const rows = async (model: string) => count('SELECT count(*)::integer AS n FROM vector_nodes WHERE model = $1', [model]);
    expect(await rows(MODEL)).to.be.greaterThan(0);
    // Half the files embedded again by another model: both models' lists kept.
    for (let i = 0; i < 20; i++) await store.files.saveIndexed(indexedFileWrite(`/d/f${i}.txt`, [vectorOf(i)], { embeddingModel: other }));
    await upkeep();
    expect(await rows(MODEL)).to.be.greaterThan(0);
    expect(await rows(other)).to.be.greaterThan(0);
    for (let i = 20; i < 40; i++) await store.files.saveIndexed(indexedFileWrite(`/d/f${i}.txt`, [vectorOf(i)], { embeddingModel: other }));
    await upkeep();
    expect(await rows(MODEL), 'the old model\'s tree gone').to.equal(0);
    expect(await count('SELECT count(*)::integer AS n FROM vector_blocks WHERE model = $1', [MODEL])).to.equal(0);
    expect(await count('SELECT count(*)::integer AS n FROM vector_sums WHERE model = $1', [MODEL])).to.equal(0);
    const hits = await store.search.semantic({ query: parseSearchQuery('anything'), filters: {}, vector: vectorOf(7), model: other, dimension: DIM, limit: 3, listLimit: 1 });
    expect(hits[0]?.id).to.equal(await idOf('/d/f7.txt'));
    // A file of the old model again: a new tree for it.
    await store.files.saveIndexed(write(99));
    await upkeep();
    expect(await rows(MODEL)).to.equal(1);
    expect((await search(99))[0]?.id).to.equal(await idOf('/d/f99.txt'));
  });

  it('takes an index written before the lists over: its graph dropped, its chunks a tail that the upkeep packs', async () => {
    let scratch: ScratchDatabase | undefined;
    let old: SqlDatabase;
    if (engine === 'postgres') {
      scratch = await createScratchDatabase();
      old = await openPostgres(scratch.url);
    } else {
      old = await openPglite(null, { template: false });
    }
    try {
      const migrations = await loadMigrations(migrationsDir);
      const before = migrations.findIndex((m) => m.name === 'vector_lists');
      expect(before).to.be.greaterThan(0);
      await migrate(old, migrations.slice(0, before));
      const oldStore = createStore(old);
      for (let i = 0; i < 30; i++) await oldStore.files.saveIndexed(write(i));
      // The graph the service built before sql/0021 (files.repository's ensureVectorIndex then).
      await old.exec(`CREATE INDEX chunks_embedding_hnsw_${DIM} ON chunks USING hnsw ((embedding::vector(${DIM})) vector_cosine_ops) WHERE dim = ${DIM}`);
      await migrate(old, migrations);
      const graphs = await old.query(`SELECT 1 FROM pg_indexes WHERE tablename = 'chunks' AND indexname LIKE 'chunks_embedding_hnsw_%'`);
      expect(graphs.rows, 'the graph dropped').to.have.length(0);
      const store = createStore(old);
      expect(await store.search.unpackedVectors(), 'every old chunk in the tail').to.equal(30);
      const nearest = async () =>
        (await store.search.semantic({ query: parseSearchQuery('anything'), filters: {}, vector: vectorOf(4), model: MODEL, dimension: DIM, limit: 5, listLimit: 1 })).map((h) => h.id);
      const fromTail = await nearest();
      expect(fromTail).to.have.length(5);
      while ((await store.search.maintainVectors(8)).more);
      expect(await store.search.unpackedVectors()).to.equal(0);
      expect(await nearest(), 'the same answer from the lists').to.deep.equal(fromTail);
    } finally {
      await old.close();
      await scratch?.drop();
    }
  });
});
