import { openPglite } from '../../src/store/engines/pglite.js';
import { openPostgres } from '../../src/store/engines/postgres.js';
import type { IndexedFileWrite } from '../../src/store/repositories/files.types.js';
import type { SqlDatabase } from '../../src/store/sql.js';
import { openStore, type StoreApi } from '../../src/store/store.js';
import { createScratchDatabase, type TestEngine } from './engines.js';

export interface TestStore {
  store: StoreApi;
  db: SqlDatabase;
  close(): Promise<void>;
}

/** A migrated store on the engine, in-process (PGlite in memory, or a scratch PostgreSQL database). */
export async function openTestStore(engine: TestEngine): Promise<TestStore> {
  if (engine === 'postgres') {
    const scratch = await createScratchDatabase();
    const db = await openPostgres(scratch.url);
    return {
      store: await openStore(db),
      db,
      close: async () => {
        await db.close();
        await scratch.drop();
      },
    };
  }
  const db = await openPglite(null);
  return { store: await openStore(db), db, close: () => db.close() };
}

/**
 * A text file's write to the index, as the indexer makes one: `path`, one chunk per vector, plain defaults for the
 * rest (content hash = path, title = file name); `fields` sets any other field, `fields.facts` any file fact.
 */
export function indexedFileWrite(
  path: string,
  embeddings: readonly Float32Array[],
  fields: Partial<Omit<IndexedFileWrite, 'facts' | 'chunks'>> & { facts?: Partial<IndexedFileWrite['facts']> } = {},
): IndexedFileWrite {
  const filename = path.slice(path.lastIndexOf('/') + 1);
  const epoch = new Date(0).toISOString();
  const { facts, ...rest } = fields;
  return {
    facts: { path, filename, extension: 'txt', size: 10, created: epoch, modified: epoch, accessed: epoch, ...facts },
    mtimeMs: 1,
    jobId: null,
    contentHash: path,
    format: 'text',
    mime: 'text/plain',
    text: `the text of ${path}`,
    textTruncated: false,
    metadata: {},
    note: null,
    analysis: { title: filename, summary: '', keywords: [], provider: 'local' },
    embeddingModel: 'model',
    ...rest,
    chunks: embeddings.map((embedding, index) => ({ index, start: 0, end: 4, text: `chunk ${index}`, embedding })),
  };
}
