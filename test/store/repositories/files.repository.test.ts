import { expect } from 'chai';
import type { IndexedFileWrite } from '../../../src/store/repositories/files.types.js';
import type { SqlDatabase } from '../../../src/store/sql.js';
import { parseSearchQuery } from '../../../src/search/query-parser.js';
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

function fileWrite(path: string, dim: number, hot: number): IndexedFileWrite {
  return indexedFileWrite(path, [vector(dim, hot)], { embeddingModel: `model-${dim}` });
}

forEachEngine('files repository: the vector index', (engine) => {
  let opened: TestStore;
  let db: SqlDatabase;
  let store: StoreApi;

  beforeEach(async () => {
    opened = await openTestStore(engine);
    ({ db, store } = opened);
  });
  afterEach(() => opened.close());

  const options = async (dim: number): Promise<string[] | null> =>
    (await db.query<{ o: string[] | null }>(`SELECT c.reloptions AS o FROM pg_class c WHERE c.relname = $1`, [`chunks_embedding_hnsw_${dim}`])).rows[0]?.o ?? null;

  it('builds a small graph (m 8, ef_construction 32) for the built-in embedder\'s 100 dimensions, defaults above 128', async () => {
    expect(await store.files.ensureVectorIndex(100)).to.equal(true);
    expect(await store.files.ensureVectorIndex(384)).to.equal(true);
    expect(await options(100)).to.deep.equal(['m=8', 'ef_construction=32']);
    expect(await options(384)).to.equal(null);
    expect(await store.files.ensureVectorIndex(100), 'an existing index is kept').to.equal(false);
  });

  it('finds the nearest file through the index written file by file', async () => {
    await store.files.ensureVectorIndex(100);
    for (let i = 0; i < 100; i++) await store.files.saveIndexed(fileWrite(`/d/f${i}.txt`, 100, i));
    const want = await db.query<{ id: number }>(`SELECT id FROM files WHERE path = '/d/f42.txt'`);
    const hits = await store.search.semantic({ query: parseSearchQuery('anything'), filters: {}, vector: vector(100, 42), model: 'model-100', dimension: 100, limit: 3 });
    expect(hits[0]?.id).to.equal(want.rows[0]!.id);
  });
});
