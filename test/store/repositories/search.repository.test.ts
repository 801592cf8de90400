/**
 * The search repository against a real database: the semantic half (best chunk per file, and a chunk scan that
 * widens when the nearest chunks belong to too few files), and the statistics upkeep refreshes during bulk runs.
 */
import { expect } from 'chai';
import { parseSearchQuery } from '../../../src/search/query-parser.js';
import type { CandidateFilters } from '../../../src/store/queries/filters.js';
import type { IndexedFileWrite } from '../../../src/store/repositories/files.types.js';
import type { StoreApi } from '../../../src/store/store.js';
import { eventually } from '../../helpers/assert.js';
import { forEachEngine } from '../../helpers/engines.js';
import { indexedFileWrite, openTestStore, type TestStore } from '../../helpers/store.js';

const DIM = 8;
const MODEL = 'static:test';

function normalised(v: number[]): Float32Array {
  const norm = Math.hypot(...v);
  return Float32Array.from(v, (x) => x / norm);
}

/** Direction `axis`, nudged a little towards the last axis by `nudge` (distinct chunks of one file). */
function near(axis: number, nudge: number): Float32Array {
  const v = new Array<number>(DIM).fill(0);
  v[axis] = 1;
  v[DIM - 1] = nudge;
  return normalised(v);
}

function fileWrite(name: string, embeddings: Float32Array[]): IndexedFileWrite {
  return indexedFileWrite(`/d/${name}`, embeddings, { contentHash: name, text: `the text of ${name}`, embeddingModel: MODEL });
}

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

forEachEngine('search repository, semantic', (engine) => {
  let opened: TestStore;
  let store: StoreApi;
  /** Six files of ten chunks each, all of file i's chunks near axis i. */
  const files: { id: number; chunks: Float32Array[] }[] = [];
  // Nearest axis 0, then 1, then 2, ... so every chunk of file 0 beats every chunk of file 1, and so on.
  const query = normalised([1, 0.6, 0.4, 0.25, 0.15, 0.1, 0, 0]);
  const semantic = (limit: number) =>
    store.search.semantic({ query: parseSearchQuery('anything'), filters: {}, vector: query, model: MODEL, dimension: DIM, limit });

  before(async () => {
    opened = await openTestStore(engine);
    store = opened.store;
    for (let axis = 0; axis < 6; axis++) {
      const chunks = Array.from({ length: 10 }, (_, k) => near(axis, 0.01 * (k + 1)));
      files.push({ id: await store.files.saveIndexed(fileWrite(`f${axis}.txt`, chunks)), chunks });
    }
  });
  after(() => opened.close());

  it("gives each file's best chunk cosine, best files first", async () => {
    const hits = await semantic(6);
    expect(hits.map((h) => h.id)).to.deep.equal(files.map((f) => f.id));
    for (const [i, hit] of hits.entries()) {
      const best = Math.max(...files[i]!.chunks.map((c) => cosine(c, query)));
      expect(hit.score).to.be.closeTo(best, 1e-5);
    }
  });

  it('scans further when the nearest chunks belong to fewer files than asked for', async () => {
    // The first scan (2 chunks per file asked for: 6) sees only file 0's chunks; the answer still has 3 files.
    expect((await semantic(3)).map((h) => h.id)).to.deep.equal(files.slice(0, 3).map((f) => f.id));
  });

  it('answers with every file when the collection has fewer than asked for', async () => {
    expect((await semantic(50)).map((h) => h.id)).to.deep.equal(files.map((f) => f.id));
  });
});

forEachEngine('search repository, semantic with phrases', (engine) => {
  let opened: TestStore;
  let store: StoreApi;
  /** Twelve files of three chunks, file i's near axis i % 7; every third holds the phrase, every fourth `draft`. */
  const files: { id: number; holds: boolean; draft: boolean; dir: string }[] = [];
  const query = normalised([1, 0.6, 0.4, 0.25, 0.15, 0.1, 0.05, 0]);
  const semantic = (text: string, limit: number, listLimit?: number, filters: CandidateFilters = {}) =>
    store.search.semantic({
      query: parseSearchQuery(text),
      filters,
      vector: query,
      model: MODEL,
      dimension: DIM,
      limit,
      ...(listLimit !== undefined ? { listLimit } : {}),
    });

  before(async () => {
    opened = await openTestStore(engine);
    store = opened.store;
    for (let i = 0; i < 16; i++) {
      const holds = i % 3 === 1;
      const draft = i % 4 === 0;
      const dir = i < 12 ? '/p' : '/q';
      const text = `${holds ? 'acute heart failure' : 'heart and acute failure'} in patient ${i}${draft ? ' draft' : ''}`;
      const chunks = Array.from({ length: 3 }, (_, k) => near(i % 7, 0.02 * (k + 1) + 0.001 * i));
      const write = indexedFileWrite(`${dir}/f${i}.txt`, chunks, { contentHash: `p${i}`, text, embeddingModel: MODEL });
      files.push({ id: await store.files.saveIndexed(write), holds, draft, dir });
    }
  });
  after(() => opened.close());

  it("answers only files holding the phrase, the same from the listed files' chunks as from the graph", async () => {
    for (const text of ['"heart failure" patient', '"heart failure" -draft', '"heart failure" "in patient"', '"heart of the" patient']) {
      for (const limit of [2, 50]) {
        const listed = await semantic(text, limit);
        const walked = await semantic(text, limit, 0); // every phrase too common to list: the graph, checked per chunk
        expect(walked.map((h) => h.id), `${text}, ${limit}`).to.deep.equal(listed.map((h) => h.id));
        walked.forEach((h, i) => expect(h.score, text).to.be.closeTo(listed[i]!.score, 1e-6));
      }
    }
    const expected = (exclude: boolean) => files.filter((f) => f.holds && !(exclude && f.draft)).map((f) => f.id).sort((a, b) => a - b);
    expect((await semantic('"heart failure" patient', 50)).map((h) => h.id).sort((a, b) => a - b)).to.deep.equal(expected(false));
    expect((await semantic('"heart failure" -draft', 50)).map((h) => h.id).sort((a, b) => a - b)).to.deep.equal(expected(true));
    expect((await semantic('"heart of the" patient', 50)).length).to.equal(files.length); // stop words only: no constraint
    expect(await semantic('"heart failure" "acute patient"', 50)).to.deep.equal([]);
  });

  it("answers only files passing a narrow filter, the same from the listed files' chunks as from the graph", async () => {
    const ids = (dir: string) => files.filter((f) => f.dir === dir).map((f) => f.id).sort((a, b) => a - b);
    for (const [text, filters] of [
      ['patient', { directory: '/q' }],
      ['patient -draft', { directory: '/q' }],
      ['"heart failure"', { directory: '/p', extensions: ['txt'] }],
      ['patient', { directory: '/nowhere' }],
    ] as [string, CandidateFilters][]) {
      for (const limit of [2, 50]) {
        const listed = await semantic(text, limit, undefined, filters);
        const walked = await semantic(text, limit, 0, filters); // the filter too wide to list: checked per chunk
        expect(walked.map((h) => h.id), `${text}, ${limit}`).to.deep.equal(listed.map((h) => h.id));
        // listed once by candidates() for both sides of a hybrid search
        const listing = await store.search.candidates(parseSearchQuery(text), filters);
        const shared = await store.search.semantic({ query: parseSearchQuery(text), filters, vector: query, model: MODEL, dimension: DIM, limit, listing });
        expect(shared, `${text}, ${limit}, shared`).to.deep.equal(listed);
        walked.forEach((h, i) => expect(h.score, text).to.be.closeTo(listed[i]!.score, 1e-6));
      }
    }
    expect((await semantic('patient', 50, undefined, { directory: '/q' })).map((h) => h.id).sort((a, b) => a - b)).to.deep.equal(ids('/q'));
    expect(await semantic('patient', 50, undefined, { directory: '/nowhere' })).to.deep.equal([]);
  });
});

forEachEngine('search repository, upkeep', (engine) => {
  let opened: TestStore;
  let store: StoreApi;
  const write = (i: number): IndexedFileWrite => indexedFileWrite(`/d/${i}.txt`, [], { contentHash: `h${i}`, text: `file number ${i}` });

  const changedSinceAnalyze = async (): Promise<number> =>
    (await opened.db.query<{ n: number }>(`SELECT n_mod_since_analyze::integer AS n FROM pg_stat_user_tables WHERE relname = 'files'`)).rows[0]?.n ?? -1;

  beforeEach(async () => {
    opened = await openTestStore(engine);
    store = opened.store;
  });
  afterEach(() => opened.close());

  it('refreshes statistics from a bounded sample (target 30 for files, 10 for the tables read by key, none for columns no condition reads), so one ANALYZE stays short at any size', async () => {
    for (let i = 0; i < 120; i++) await store.files.saveIndexed(write(i));
    const bounds = async (table: string, column: string): Promise<number | undefined> => {
      const { rows } = await opened.db.query<{ bounds: number }>(
        `SELECT array_length(histogram_bounds::text::text[], 1) AS bounds FROM pg_stats WHERE tablename = $1 AND attname = $2`,
        [table, column],
      );
      return rows[0]?.bounds;
    };
    expect((await store.search.analyze(0))?.outcome).to.equal('analyzed'); // files
    // 120 distinct paths: the default target (100) would keep 101 bounds; 30 keeps at most 31.
    expect(await bounds('files', 'path')).to.be.within(12, 31);
    // Columns no condition reads have none (0007, 0016): the sample's work is the filtered columns'.
    const { rows: described } = await opened.db.query<{ attname: string }>(`SELECT attname FROM pg_stats WHERE tablename = 'files'`);
    const withStatistics = described.map((r) => r.attname);
    expect(withStatistics).to.include.members(['path', 'filename', 'extension', 'size', 'modified', 'status']);
    const unread = ['title', 'content', 'summary', 'keywords', 'error', 'note', 'mtime_ms'];
    expect(withStatistics.filter((column) => unread.includes(column))).to.deep.equal([]);
    expect((await store.search.analyze(2))?.outcome).to.equal('analyzed'); // keyword_docs, one row a file
    // 120 distinct file ids: 10 keeps at most 11 bounds.
    expect(await bounds('keyword_docs', 'file_id')).to.be.within(2, 11);
    expect(await store.search.analyze(99)).to.equal(null);
  });

  it("analyzes a table again only once more than autovacuum's share of it changed (50 rows + 10 %)", async () => {
    // The server's autovacuum must not analyze it meanwhile (PGlite has none).
    await opened.db.exec('ALTER TABLE files SET (autovacuum_enabled = false)');
    for (let i = 0; i < 200; i++) await store.files.saveIndexed(write(i));
    // The server counts changes per transaction and publishes them about a second later: wait until all are counted.
    await eventually(async () => (await changedSinceAnalyze()) >= 200);
    expect((await store.search.analyze(0))?.outcome).to.equal('analyzed');
    for (let i = 200; i < 210; i++) await store.files.saveIndexed(write(i));
    const changed = await eventually(async () => (await changedSinceAnalyze()) || false);
    expect(changed).to.be.below(50 + 20); // 200 rows analyzed: the threshold
    expect((await store.search.analyze(0))?.outcome).to.equal('unchanged');
    for (let i = 210; i < 300; i++) await store.files.saveIndexed(write(i));
    await eventually(async () => expect((await store.search.analyze(0))?.outcome).to.equal('analyzed'));
    expect((await store.search.analyze(0))?.outcome).to.equal('unchanged');
  });
});

forEachEngine('search repository, result rows', (engine) => {
  let opened: TestStore;
  let store: StoreApi;
  before(async () => {
    opened = await openTestStore(engine);
    store = opened.store;
  });
  after(() => opened.close());

  it("describes result files in the binary format exactly as the file record's text path does (dates, arrays, long text)", async () => {
    const long = 'ünïcödé 🐢 '.repeat(3_000); // 33,000 characters, some of them four bytes long
    const ids = [
      await store.files.saveIndexed(
        indexedFileWrite('/d/a "quoted", name.txt', [], {
          text: long,
          analysis: { title: 'Ünïcode — title', summary: 'A summary, with "quotes"', keywords: ['ä', 'b,c', 'd "e"', '{f}', 'NULL'], provider: 'local' },
        }),
      ),
      await store.files.saveIndexed(indexedFileWrite('/d/empty.txt', [], { text: '', analysis: { title: '', summary: '', keywords: [], provider: 'local' } })),
      await store.files.saveIndexed(indexedFileWrite('/d/dates.txt', [])),
    ];
    // Microseconds, times before 1970 and 2000, no time, and infinity: the text path keeps milliseconds, floored.
    await opened.db.query(
      `UPDATE files SET created = '1969-07-20 20:17:40.123999+00', modified = '1999-12-31 23:59:59.999999+00', accessed = NULL WHERE id = $1`,
      [ids[2]!],
    );
    await opened.db.query(`UPDATE files SET created = 'infinity', modified = '-infinity', accessed = '2026-11-27 03:31:32.5+00' WHERE id = $1`, [ids[1]!]);
    const described = await store.search.describe(ids, 'anything');
    expect(described.files.map((f) => f.id).sort()).to.deep.equal([...ids].sort());
    for (const file of described.files) {
      const { content_head: head, ...summary } = file;
      const record = (await store.files.get(file.id))!;
      expect(summary).to.deep.equal({
        id: record.id,
        file_path: record.file_path,
        filename: record.filename,
        extension: record.extension,
        created: record.created,
        modified: record.modified,
        accessed: record.accessed,
        title: record.title,
        summary: record.summary,
        keywords: record.keywords,
        size: record.size,
        status: record.status,
      });
      if (file.id === ids[0]) expect(head).to.equal([...long].slice(0, 20_000).join(''));
      if (file.id === ids[1]) expect(head).to.equal('');
    }
    const dated = described.files.find((f) => f.id === ids[2])!;
    expect([dated.created, dated.modified, dated.accessed]).to.deep.equal(['1969-07-20T20:17:40.123Z', '1999-12-31T23:59:59.999Z', null]);
    const infinite = described.files.find((f) => f.id === ids[1])!;
    expect([infinite.created, infinite.modified, infinite.accessed]).to.deep.equal([null, null, '2026-11-27T03:31:32.500Z']);
  });
});
