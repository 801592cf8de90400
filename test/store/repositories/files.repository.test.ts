import { expect } from 'chai';
import { createFilesRepository, FIND_BY_HASH_SQL } from '../../../src/store/repositories/files.repository.js';
import { readKnownUnder } from '../../../src/store/repositories/known-under.js';
import type { SqlDatabase } from '../../../src/store/sql.js';
import type { StoreApi } from '../../../src/store/store.js';
import { forEachEngine } from '../../helpers/engines.js';
import { indexedFileWrite, openTestStore, type TestStore } from '../../helpers/store.js';

/**
 * File i's vector: a point on a quarter circle in the first two axes, plus a little of one of the other axes. Real
 * embeddings lie near a low-dimensional surface like this; points all at the same distance from each other (the
 * worst case of every graph index) do not occur.
 */
function vector(dim: number, i: number): Float32Array {
  const v = new Float32Array(dim);
  const angle = (i / 100) * (Math.PI / 2);
  v[0] = Math.cos(angle);
  v[1] = Math.sin(angle);
  v[2 + (i % (dim - 2))] = 0.05;
  return v;
}

forEachEngine('files repository', (engine) => {
  let opened: TestStore;
  let db: SqlDatabase;
  let store: StoreApi;

  beforeEach(async () => {
    opened = await openTestStore(engine);
    ({ db, store } = opened);
  });
  afterEach(() => opened.close());

  it('knownUnder answers every file and excluded file under a folder, page after page', async () => {
    await store.files.saveIndexed(indexedFileWrite('/data/a/0', [vector(3, 0)], { mtimeMs: 1700000000123.5, facts: { size: 42 }, contentHash: 'h0' }));
    for (let i = 1; i <= 6; i++) await store.files.saveIndexed(indexedFileWrite(`/data/a/${i}`, [vector(3, i)], {}));
    await store.files.saveIndexed(indexedFileWrite('/data/ab/outside', [vector(3, 1)], {}));
    const excluded = (path: string, size: number) => ({ ...indexedFileWrite(path, []), facts: { ...indexedFileWrite(path, []).facts, size }, mtimeMs: 5.25, jobId: null, code: 'secret', reason: 'r' });
    for (let i = 1; i <= 7; i++) await store.files.saveExcluded(excluded(`/data/a/x${i}`, i));
    await store.files.saveExcluded(excluded('/data/ab/x', 1));

    const expected = await readKnownUnder(store.files, '/data/a');
    expect(expected).to.have.length(14);
    expect(expected.every((k) => k.path.startsWith('/data/a/'))).to.equal(true);
    expect(expected.find((k) => k.path === '/data/a/0')).to.include({ size: 42, mtimeMs: 1700000000123.5, contentHash: 'h0', status: 'indexed' });
    expect(expected.find((k) => k.path === '/data/a/x7')).to.deep.equal({ id: 0, path: '/data/a/x7', size: 7, mtimeMs: 5.25, contentHash: null, status: 'excluded', embeddingModel: '', jobId: null });
    expect(await store.files.known(['/data/a/0', '/data/a/x7'])).to.deep.equal(expected.filter((k) => k.path === '/data/a/0' || k.path === '/data/a/x7'));
    // Pages of 3 and of 7 rows (exactly full, then an empty one) give the same answer as one page.
    // Each page is a call of its own (searches go between calls): 3 + 3 + 1 files, then 3 + 3 + 1 excluded ones;
    // 7 + 0 and 7 + 0.
    for (const [knownPageRows, calls] of [[3, 6], [7, 4]] as const) {
      const files = createFilesRepository(db, { knownPageRows });
      let made = 0;
      const paged = await readKnownUnder({ knownUnderPage: (directory, after) => (made++, files.knownUnderPage(directory, after)) }, '/data/a');
      expect(paged, `pages of ${knownPageRows}`).to.deep.equal(expected);
      expect(made, `calls with pages of ${knownPageRows}`).to.equal(calls);
    }
  });

  it('findByHash finds an indexed twin of the same model at another path through the content hash index alone', async () => {
    const model = 'static:test-model';
    await store.files.saveIndexed(indexedFileWrite('/d/a', [vector(3, 1)], { contentHash: 'same', embeddingModel: model }));
    await store.files.saveIndexed(indexedFileWrite('/d/other-model', [vector(3, 2)], { contentHash: 'other', embeddingModel: 'static:another' }));
    await store.files.saveIndexed(indexedFileWrite('/d/failed', [vector(3, 3)], { contentHash: 'failed-hash', embeddingModel: model }));
    await db.exec("UPDATE files SET status = 'failed' WHERE path = '/d/failed'"); // a failure keeps no hash: made so here
    const a = (await store.files.known(['/d/a']))[0]!.id;
    expect(await store.files.findByHash('same', model, '/d/b')).to.equal(a);
    expect(await store.files.findByHash('same', model, '/d/a'), 'not the file itself').to.equal(null);
    expect(await store.files.findByHash('other', model, '/d/b'), 'another model').to.equal(null);
    expect(await store.files.findByHash('failed-hash', model, '/d/b'), 'a failed file').to.equal(null);

    // Thousands of indexed files of one model, never analysed (as in a bulk run before its statistics, or with
    // statistics taken while most files were not indexed yet): a plan through files_embedding_model_idx read every
    // indexed file for each lookup. The lookup's statement may only use the content hash's index.
    await db.exec(`INSERT INTO files (path, filename, status, content_hash, embedding_model)
                   SELECT '/bulk/' || g, 'f' || g, 'indexed', 'bulk-' || g, '${model}' FROM generate_series(1, 3000) AS g`);
    const { rows } = await db.query<{ plan: string }>(
      `EXPLAIN (FORMAT TEXT) ${FIND_BY_HASH_SQL.replace('$1', "'bulk-7'").replace('$2', `'${model}'`).replace('$3', "'/x'")}`,
    );
    const plan = rows.map((r) => Object.values(r)[0]).join('\n');
    expect(plan).to.include('files_content_hash_idx');
    expect(plan).not.to.include('files_embedding_model_idx');
    expect(plan).not.to.include('Seq Scan');
    expect(await store.files.findByHash('bulk-7', model, '/x')).to.be.a('number');
  });

  it('contentKeys answers every indexed file\'s key, page after page, and no failed file\'s', async () => {
    const hashes = Array.from({ length: 7 }, (_, i) => `${String(i).repeat(16)}tail-${i}`);
    for (const [i, contentHash] of hashes.entries()) await store.files.saveIndexed(indexedFileWrite(`/k/${i}`, [vector(3, i)], { contentHash }));
    await store.files.saveIndexed(indexedFileWrite('/k/copy', [vector(3, 1)], { contentHash: hashes[1]! }));
    await store.files.saveFailed({ ...indexedFileWrite('/k/failed', []), jobId: null, code: 'parse_failed', reason: 'r' });
    const expected = hashes.map((h) => h.slice(0, 16));
    const sorted = (keys: string[]) => [...keys].sort();
    const all = async (knownPageRows?: number, chars = 16): Promise<{ keys: string[]; calls: number }> => {
      const files = knownPageRows === undefined ? store.files : createFilesRepository(db, { knownPageRows });
      const keys: string[] = [];
      let calls = 0;
      for (let after: number | null = 0; after !== null; calls++) {
        const page = await files.contentKeys(chars, after);
        keys.push(...page.keys);
        after = page.next;
      }
      return { keys, calls };
    };
    const want = sorted([...expected, expected[1]!]);
    expect(await all()).to.deep.equal({ keys: (await all()).keys, calls: 1 });
    expect(sorted((await all()).keys)).to.deep.equal(want);
    // Pages of 3 rows (3 calls) and of 8 (exactly full, then an empty one: 2 calls): the same keys as one page.
    expect(await all(3).then((r) => ({ keys: sorted(r.keys), calls: r.calls }))).to.deep.equal({ keys: want, calls: 3 });
    expect(await all(8).then((r) => ({ keys: sorted(r.keys), calls: r.calls }))).to.deep.equal({ keys: want, calls: 2 });
    expect((await all(3, 4)).keys).to.have.length(8);
  });

  describe('chunk rows', () => {
    it('store every vector exactly (sent packed, in binary) with its place, over several statements', async () => {
      // 170 chunks of 100 floats: two statements (160 vectors fit pgvector's 16,000 dimensions), awkward floats.
      const embeddings = Array.from({ length: 170 }, (_, c) => Float32Array.from({ length: 100 }, (_, i) => Math.fround(Math.sin(c * 100 + i) * 1e-3 * (i + 1)) / 3));
      const write = indexedFileWrite('/d/long.txt', embeddings, { embeddingModel: 'model-100' });
      write.chunks = write.chunks.map((c, i) => ({ ...c, start: i * 10, end: i * 10 + 9 }));
      const id = await store.files.saveIndexed(write);
      const { rows } = await db.query<{ idx: number; start_char: number; end_char: number; model: string; dim: number; v: string }>(
        'SELECT idx, start_char, end_char, model, dim, embedding::text AS v FROM chunks WHERE file_id = $1 ORDER BY idx',
        [id],
      );
      expect(rows).to.have.length(170);
      rows.forEach((r, i) => {
        expect([r.idx, r.start_char, r.end_char, r.model, r.dim]).to.deep.equal([i, i * 10, i * 10 + 9, 'model-100', 100]);
        expect(Float32Array.from(JSON.parse(r.v) as number[]), `chunk ${i}`).to.deep.equal(embeddings[i]);
      });
      await store.files.saveIndexed({ ...write, chunks: write.chunks.slice(0, 2) });
      expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks WHERE file_id = $1', [id])).rows[0]!.n, 'replaced').to.equal(2);
    });

    it("follow every kind of write: a new row's, a row written again, a failure, a copy; the path's exclusion forgotten", async () => {
      const chunksOf = async (path: string): Promise<number[]> =>
        (await db.query<{ idx: number }>('SELECT c.idx FROM chunks c JOIN files f ON f.id = c.file_id WHERE f.path = $1 ORDER BY c.idx', [path])).rows.map((r) => r.idx);
      const exclusions = async (): Promise<string[]> => (await db.query<{ path: string }>('SELECT path FROM excluded_files ORDER BY path')).rows.map((r) => r.path);
      const three = [vector(100, 1), vector(100, 2), vector(100, 3)];
      // Excluded first (a key in it), then written: the exclusion goes, the new row gets its chunks.
      const facts = indexedFileWrite('/d/a.txt', []).facts;
      await store.files.saveExcluded({ facts, mtimeMs: 1, jobId: null, code: 'contains_secret', reason: 'a key' });
      await store.files.saveExcluded({ facts: { ...facts, path: '/d/other.txt' }, mtimeMs: 1, jobId: null, code: 'contains_secret', reason: 'a key' });
      expect(await exclusions()).to.deep.equal(['/d/a.txt', '/d/other.txt']);
      const id = await store.files.saveIndexed(indexedFileWrite('/d/a.txt', three));
      expect(await exclusions(), 'only its own exclusion goes').to.deep.equal(['/d/other.txt']);
      expect(await chunksOf('/d/a.txt')).to.deep.equal([0, 1, 2]);
      // Written again with fewer chunks: the same row, the old chunks replaced.
      expect(await store.files.saveIndexed(indexedFileWrite('/d/a.txt', three.slice(0, 1)))).to.equal(id);
      expect(await chunksOf('/d/a.txt')).to.deep.equal([0]);
      // A second file, new: its chunks beside the first's, none of the first's touched.
      await store.files.saveIndexed(indexedFileWrite('/d/b.txt', three));
      expect([await chunksOf('/d/a.txt'), await chunksOf('/d/b.txt')]).to.deep.equal([[0], [0, 1, 2]]);
      // A copy onto the first (identical content elsewhere), then onto a new path: the chunks are the source's.
      const bId = (await db.query<{ id: number }>(`SELECT id FROM files WHERE path = '/d/b.txt'`)).rows[0]!.id;
      await store.files.saveCopy(bId, facts, 2, null);
      await store.files.saveCopy(bId, { ...facts, path: '/d/c.txt', filename: 'c.txt' }, 2, null);
      expect([await chunksOf('/d/a.txt'), await chunksOf('/d/c.txt')]).to.deep.equal([[0, 1, 2], [0, 1, 2]]);
      // A failure where an indexed file was: no chunks left; a failure of a new path: a row without any.
      await store.files.saveFailed({ facts, mtimeMs: 3, jobId: null, code: 'parse_error', reason: 'broken' });
      await store.files.saveFailed({ facts: { ...facts, path: '/d/d.txt', filename: 'd.txt' }, mtimeMs: 3, jobId: null, code: 'parse_error', reason: 'broken' });
      expect([await chunksOf('/d/a.txt'), await chunksOf('/d/d.txt'), await chunksOf('/d/b.txt')]).to.deep.equal([[], [], [0, 1, 2]]);
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM chunks');
      expect(rows[0]!.n, 'no chunk of a row that is gone or failed').to.equal(6);
    });

    it('refuse chunks of one file with different dimensions, writing nothing', async () => {
      const write = indexedFileWrite('/d/mixed.txt', [vector(100, 1), vector(50, 2)]);
      let error: unknown = null;
      await store.files.saveIndexed(write).catch((e: unknown) => (error = e));
      expect(String(error)).to.match(/differ in dimension/);
      expect((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM files WHERE path = '/d/mixed.txt'`)).rows[0]!.n).to.equal(0);
    });
  });

  describe('the collection figures (GET /api/files/stats)', () => {
    /** The figures counted from the files themselves: what the trigger-kept counters must always equal. */
    async function counted() {
      const { rows } = await db.query<{ total: number; name_only: number; size: string; failed: number }>(
        `SELECT count(*) FILTER (WHERE status = 'indexed')::int AS total, count(*) FILTER (WHERE status = 'indexed' AND content = '')::int AS name_only,
                coalesce(sum(size) FILTER (WHERE status = 'indexed'), 0)::text AS size, count(*) FILTER (WHERE status = 'failed')::int AS failed FROM files`,
      );
      const ext = await db.query<{ extension: string; n: number }>(`SELECT extension, count(*)::int AS n FROM files WHERE status = 'indexed' GROUP BY extension`);
      const r = rows[0]!;
      return { total: r.total, nameOnly: r.name_only, size: Number(r.size), failed: r.failed, extensions: Object.fromEntries(ext.rows.map((e) => [e.extension, e.n])) };
    }
    async function expectExact(): Promise<void> {
      const stats = await store.files.stats();
      const truth = await counted();
      expect({ total: stats.total_files, nameOnly: stats.name_only_files, size: stats.total_size, failed: stats.failed_files, extensions: stats.extensions }).to.deep.equal(truth);
    }
    const EPOCH = new Date(0).toISOString();
    const facts = (path: string, size: number) => ({ path, filename: path.slice(path.lastIndexOf('/') + 1), extension: path.slice(path.lastIndexOf('.') + 1), size, created: EPOCH, modified: EPOCH, accessed: EPOCH });

    it('stay exact through writes, re-indexing, failures, text gained or lost, and removals', async () => {
      await expectExact();
      await store.files.saveIndexed(indexedFileWrite('/d/a.txt', [], { facts: { size: 100 } }));
      await store.files.saveIndexed(indexedFileWrite('/d/b.md', [], { facts: { extension: 'md', size: 50 } }));
      await store.files.saveIndexed(indexedFileWrite('/d/c.png', [], { facts: { extension: 'png', size: 7 }, text: '' })); // name only
      await expectExact();
      expect((await store.files.stats()).extensions).to.deep.equal({ md: 1, png: 1, txt: 1 });
      await store.files.saveIndexed(indexedFileWrite('/d/a.txt', [], { facts: { size: 300 }, text: '' })); // re-indexed: bigger, its text gone
      await store.files.saveIndexed(indexedFileWrite('/d/c.png', [], { facts: { extension: 'png', size: 7 }, text: 'text found after all' }));
      await expectExact();
      await store.files.saveFailed({ facts: facts('/d/b.md', 50), mtimeMs: 1, jobId: null, code: 'corrupt', reason: 'broken' }); // indexed -> failed
      await store.files.saveFailed({ facts: facts('/d/e.pdf', 9), mtimeMs: 1, jobId: null, code: 'corrupt', reason: 'broken' });
      await expectExact();
      expect((await store.files.stats()).extensions).to.deep.equal({ png: 1, txt: 1 });
      await store.files.saveIndexed(indexedFileWrite('/d/e.pdf', [], { facts: { extension: 'pdf', size: 9 } })); // failed -> indexed
      await store.files.removePaths(['/d/a.txt']);
      await expectExact();
      await store.files.removeUnder('/d');
      await expectExact();
      const empty = await store.files.stats();
      expect([empty.total_files, empty.failed_files, empty.total_size, empty.extensions, empty.last_indexed]).to.deep.equal([0, 0, 0, {}, null]);
    });
  });
});
