import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { createPgliteHere, INITDB_ARGS, SparseMemoryView } from '../../../src/store/engines/pglite-initdb.js';

const MB = 1024 * 1024;

/** Every catalogue table's rows (with each row's xmin) in the databases one connects to, hashed per table. */
async function catalogueHashes(dataDir: string): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  for (const database of ['postgres', 'template1']) {
    const db = await PGlite.create({ dataDir, database, startParams: [...PGlite.defaultStartParams, ...INITDB_ARGS] });
    try {
      const tables = await db.query<{ relname: string }>(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'pg_catalog' AND c.relkind = 'r' ORDER BY 1",
      );
      for (const { relname } of tables.rows) {
        const { rows } = await db.query<{ hash: string }>(
          `SELECT count(*) || ':' || md5(coalesce(string_agg(t::text || '/' || t.xmin::text, ',' ORDER BY t::text || '/' || t.xmin::text), '')) AS hash FROM pg_catalog.${relname} t`,
        );
        hashes[`${database}.${relname}`] = rows[0]!.hash;
      }
    } finally {
      await db.close();
    }
  }
  return hashes;
}

describe("a new PGlite database's creation (initdb, as the child process runs it)", function () {
  this.timeout(180_000);
  let parent: string;

  beforeEach(async () => {
    parent = await mkdtemp(path.join(tmpdir(), 'filesift-pglite-initdb-'));
  });
  afterEach(() => rm(parent, { recursive: true, force: true }));

  it('puts a WASM memory back as it was when copied, byte for byte, from a copy of its written part only', () => {
    const memory = new ArrayBuffer(10 * MB);
    const view = new SparseMemoryView(memory);
    view.fill(7, 0, 3000);
    view[2 * MB + 5] = 9;
    const before = new Uint8Array(memory).slice();
    const copy = view.slice();
    expect(copy.length).to.equal(3 * MB); // up to the last block holding a non-zero byte
    // PostgreSQL's run writes below and above the copied part, and grows the memory (a new, larger buffer).
    view.fill(1, 100, 200);
    view.fill(2, 3 * MB + 17, 3 * MB + 40);
    view[9 * MB] = 3;
    const grown = new ArrayBuffer(12 * MB);
    new Uint8Array(grown).set(new Uint8Array(memory));
    const after = new SparseMemoryView(grown);
    after[11 * MB] = 4; // beyond the copied length: a whole copy written back leaves it too
    after.set(copy);
    const now = new Uint8Array(grown);
    expect(Buffer.compare(now.subarray(0, before.length), before)).to.equal(0);
    expect(now[11 * MB]).to.equal(4);
    // Any other slice or set is a Uint8Array's own.
    expect([...after.slice(0, 3)]).to.deep.equal([7, 7, 7]);
    after.set([5, 6], 10);
    expect([...now.subarray(10, 12)]).to.deep.equal([5, 6]);
  });

  it("creates the catalogues PGlite's own creation does, copying initdb's memory sparsely", async () => {
    const ours = path.join(parent, 'ours');
    await mkdir(ours);
    const copies = await createPgliteHere(ours, INITDB_ARGS);
    // initdb copied its instance's memory once (128 MB) and kept a few megabytes of it.
    expect(copies.copies).to.equal(1);
    expect(copies.memoryBytes).to.be.at.least(128 * MB);
    expect(copies.copiedBytes).to.be.below(copies.memoryBytes / 4);

    // PGlite's own creation, in a process of its own (it keeps ~500 MB referenced).
    const theirs = path.join(parent, 'theirs');
    const script = `const { PGlite } = await import(${JSON.stringify(import.meta.resolve('@electric-sql/pglite'))});
      const db = await PGlite.create({ dataDir: ${JSON.stringify(theirs)}, initDbStartParams: ${JSON.stringify(INITDB_ARGS)} });
      await db.close();`;
    await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);

    const [a, b] = [await catalogueHashes(ours), await catalogueHashes(theirs)];
    expect(Object.keys(a).length).to.be.above(100);
    expect(a).to.deep.equal(b);
  });
});
