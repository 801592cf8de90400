import { expect } from 'chai';
import { openPglite } from '../../../src/store/engines/pglite.js';
import { openPostgres } from '../../../src/store/engines/postgres.js';
import type { IndexedFileWrite } from '../../../src/store/repositories/files.types.js';
import type { SqlDatabase } from '../../../src/store/sql.js';
import { openStore, type StoreApi } from '../../../src/store/store.js';
import { createScratchDatabase, forEachEngine, type ScratchDatabase } from '../../helpers/engines.js';
import { indexedFileWrite } from '../../helpers/store.js';

function unit(dim: number, hot: number): Float32Array {
  const v = new Float32Array(dim);
  v[hot % dim] = 1;
  return v;
}

function fileWrite(path: string, contentHash: string, model: string, dim: number, chunks = 2): IndexedFileWrite {
  const embeddings = Array.from({ length: chunks }, (_, i) => unit(dim, i));
  return indexedFileWrite(path, embeddings, {
    contentHash,
    embeddingModel: model,
    analysis: { title: `title of ${path}`, summary: '', keywords: [], provider: 'local' },
  });
}

forEachEngine('embeddings repository', (engine) => {
  let db: SqlDatabase;
  let scratch: ScratchDatabase | null = null;
  let store: StoreApi;
  let a: number;
  let b: number;
  let c: number;

  beforeEach(async () => {
    if (engine === 'postgres') {
      scratch = await createScratchDatabase();
      db = await openPostgres(scratch.url);
    } else {
      db = await openPglite(null);
    }
    store = await openStore(db);
    a = await store.files.saveIndexed(fileWrite('/d/a.txt', 'h1', 'static:old', 100));
    b = await store.files.saveIndexed(fileWrite('/d/b.txt', 'h2', 'static:old', 100, 3));
    c = await store.files.saveIndexed(fileWrite('/d/c.txt', 'h1', 'transformer:new', 32));
    const epoch = new Date(0).toISOString();
    await store.files.saveFailed({ facts: { path: '/d/bad.pdf', filename: 'bad.pdf', extension: 'pdf', size: 1, created: epoch, modified: epoch, accessed: epoch }, mtimeMs: 1, jobId: null, code: 'corrupt', reason: 'x' });
  });
  afterEach(async () => {
    await db.close();
    await scratch?.drop();
  });

  it('lists and counts the indexed files of other models, paged by id', async () => {
    expect(await store.embeddings.countStale('transformer:new')).to.equal(2);
    expect(await store.embeddings.stale('transformer:new', 0, 1)).to.deep.equal([{ id: a, path: '/d/a.txt' }]);
    expect(await store.embeddings.stale('transformer:new', a, 10)).to.deep.equal([{ id: b, path: '/d/b.txt' }]);
    expect(await store.embeddings.stale('transformer:new', b, 10)).to.deep.equal([]);
    expect(await store.embeddings.countByModel()).to.deep.equal({ 'static:old': 2, 'transformer:new': 1 });
    expect(await store.embeddings.chunkSummary()).to.deep.equal([
      { model: 'static:old', dim: 100, chunks: 5 },
      { model: 'transformer:new', dim: 32, chunks: 2 },
    ]);
  });

  it('answers the stored text and title to re-embed from', async () => {
    expect(await store.embeddings.source(a)).to.deep.equal({
      id: a,
      path: '/d/a.txt',
      status: 'indexed',
      title: 'title of /d/a.txt',
      content: 'the text of /d/a.txt',
      contentHash: 'h1',
      embeddingModel: 'static:old',
    });
    expect(await store.embeddings.source(999_999)).to.equal(null);
  });

  it('replaces the chunks and the model of a file whose content is unchanged, and of no other', async () => {
    const chunks = [{ index: 0, start: 0, end: 3, text: 'new', embedding: unit(32, 5) }];
    expect(await store.embeddings.replace({ fileId: b, contentHash: 'h2', embeddingModel: 'transformer:new', chunks })).to.equal(true);
    expect(await store.files.get(b)).to.include({ embedding_model: 'transformer:new', chunk_count: 1 });
    // The file changed meanwhile (another hash): nothing is written.
    expect(await store.embeddings.replace({ fileId: a, contentHash: 'stale', embeddingModel: 'transformer:new', chunks })).to.equal(false);
    expect(await store.files.get(a)).to.include({ embedding_model: 'static:old', chunk_count: 2 });
    expect(await store.embeddings.chunkSummary()).to.deep.equal([
      { model: 'static:old', dim: 100, chunks: 2 },
      { model: 'transformer:new', dim: 32, chunks: 3 },
    ]);
  });

  it('stores every float32 of a vector exactly (the literal is shortened, not rounded)', async () => {
    const embedding = Float32Array.from({ length: 384 }, (_, i) => Math.sin(i * 12.9898) * 43758.5453 % 1e-3 + (i % 7 === 0 ? 1e-9 : 0));
    const chunks = [{ index: 0, start: 0, end: 3, text: 'new', embedding }];
    await store.embeddings.replace({ fileId: b, contentHash: 'h2', embeddingModel: 'transformer:new', chunks });
    const { rows } = await db.query<{ embedding: string }>('SELECT embedding::text AS embedding FROM chunks WHERE file_id = $1', [b]);
    const stored = Float32Array.from(JSON.parse(rows[0]!.embedding) as number[]);
    expect(Array.from(stored)).to.deep.equal(Array.from(embedding));
  });

  it('copies the chunks of identical content embedded with the new model', async () => {
    expect(await store.embeddings.copy(c, a, 'h1')).to.equal(true);
    expect(await store.files.get(a)).to.include({ embedding_model: 'transformer:new', chunk_count: 2 });
    expect(await store.embeddings.countStale('transformer:new')).to.equal(1);
    expect(await store.embeddings.copy(c, b, 'h1')).to.equal(false); // b has other content
    expect(await store.files.get(b)).to.include({ embedding_model: 'static:old', chunk_count: 3 });
  });
});

describe('embeddings repository, counting stale files [pglite]', () => {
  let db: SqlDatabase;
  afterEach(async () => db.close());

  it('reads only the stale files\' entries of the model index, not every file (it runs at every start)', async () => {
    db = await openPglite(null);
    const store = await openStore(db);
    for (let i = 0; i < 40; i++) await store.files.saveIndexed(fileWrite(`/d/${i}.txt`, `h${i}`, i < 3 ? 'static:old' : 'static:current', 8, 1));
    const reads = async (): Promise<{ scans: number; entries: number }> => {
      await db.query('SELECT pg_stat_force_next_flush()'); // PGlite reports a statement's counters at the next one
      const { rows } = await db.query<{ scans: string; entries: string }>(
        `SELECT (SELECT seq_scan FROM pg_stat_user_tables WHERE relname = 'files') AS scans,
                (SELECT idx_tup_read FROM pg_stat_user_indexes WHERE indexrelname = 'files_embedding_model_idx') AS entries`,
      );
      return { scans: Number(rows[0]!.scans), entries: Number(rows[0]!.entries) };
    };
    for (const [model, stale] of [['static:current', 3], ['static:old', 37], ['static:none', 40]] as const) {
      const before = await reads();
      expect(await store.embeddings.countStale(model)).to.equal(stale);
      const after = await reads();
      expect(after.scans - before.scans, 'sequential scans of files').to.equal(0);
      expect(after.entries - before.entries, 'entries read from files_embedding_model_idx').to.equal(stale);
    }
  });
});
