import { existsSync } from 'node:fs';
import path from 'node:path';
import { MemoryFS, PGlite, type PGliteOptions, type postgresMod } from '@electric-sql/pglite';

/**
 * A new PGlite database's creation (initdb), as the child process runs it (workers/pglite-create.process.ts,
 * started by pglite-create.ts). What PGlite's own creation holds at its peak, measured in the child (~670 MB): the
 * instance PGlite starts afterwards on the new database; a second instance that initdb runs PostgreSQL in, whose
 * 128 MB WASM memory initdb copies and writes back whole (both resident) and grows by PostgreSQL's default 128 MB of
 * shared_buffers; and, on a file system other than MemoryFS, the new database dumped from memory as a tar and
 * unpacked onto the disk. Each is cut below; the database's catalogues are the same rows (tested).
 */

/** Where PGlite's WASM file system keeps the database (PGDATA in its sources; not exported). */
const PGDATA = '/pglite/data';

/**
 * initdb's own options: its configuration test and its bootstrap ran with PostgreSQL's default 128 MB of
 * shared_buffers, zero-filled in the WASM memory. A new database opens with 16 MB (pglite.ts, sharedBuffersMb) and
 * every open sets its own; postgresql.conf says 16MB instead of 128MB.
 */
export const INITDB_ARGS = ['-c', 'shared_buffers=16MB'];

/** Thrown by CreationFS once initdb's files are on disk: the creation stops there. */
class InitdbDone extends Error {}

/**
 * The file system the creating instance runs on: the folder on disk mounted at PGDATA as PGlite's NodeFS mounts
 * it, but a MemoryFS to PGlite, which then lets initdb write straight into PGDATA; for any other file system it runs
 * initdb on a copy in memory, then dumps that as a tar and unpacks it onto the disk (~190 MB at the child's peak:
 * the files in memory, their copies, the tar, its unpacked copies). PGlite syncs once initdb is done, before it
 * starts PostgreSQL on the new database: the creation needs nothing after that (the store creates the extension at
 * its first open), so it stops there.
 */
class CreationFS extends MemoryFS {
  constructor(private readonly folder: string) {
    super();
  }

  override init(pg: PGlite, emscriptenOptions: Partial<postgresMod.PostgresMod>): Promise<{ emscriptenOpts: Partial<postgresMod.PostgresMod> }> {
    const mountFolder = (mod: postgresMod.PostgresMod): void => {
      mod.FS.mkdirTree(PGDATA);
      mod.FS.mount(mod.FS.filesystems.NODEFS, { root: this.folder }, PGDATA);
    };
    return super.init(pg, { ...emscriptenOptions, preRun: [...(emscriptenOptions.preRun ?? []), mountFolder] });
  }

  override async syncToFs(): Promise<void> {
    if (existsSync(path.join(this.folder, 'PG_VERSION'))) throw new InitdbDone();
  }
}

/** What initdb copied of its instance's memory: how many copies, their bytes, and the memory's at each copy. */
export interface InitdbMemoryCopies {
  copies: number;
  copiedBytes: number;
  memoryBytes: number;
}

const BLOCK = 1 << 20;
const ZEROS = Buffer.alloc(BLOCK);

/** Whether bytes [from, to) of memory are all zero (at most BLOCK). Reading pages never written leaves them unmapped. */
function isZero(memory: Uint8Array, from: number, to: number): boolean {
  return Buffer.compare(Buffer.from(memory.buffer, memory.byteOffset + from, to - from), ZEROS.subarray(0, to - from)) === 0;
}

/** A WASM memory's bytes up to its last non-zero block; every byte after them, up to fullLength, was zero. */
export class MemorySnapshot extends Uint8Array {
  static get [Symbol.species](): Uint8ArrayConstructor {
    return Uint8Array;
  }

  fullLength = 0;
}

/**
 * A view of a WASM memory whose whole copy (`slice()`) is a MemorySnapshot, and which puts one back (`set()`) by
 * writing its bytes and zeroing every block above them that is not zero: the memory then holds what it held when
 * copied, byte for byte over the copied length, as a whole copy written back would leave it, without a 128 MB copy
 * and without making pages resident that were never written. Anything else is a Uint8Array's own.
 */
export class SparseMemoryView extends Uint8Array {
  static get [Symbol.species](): Uint8ArrayConstructor {
    return Uint8Array;
  }

  constructor(
    buffer: ArrayBuffer,
    private readonly counted?: InitdbMemoryCopies,
  ) {
    super(buffer);
  }

  override slice(start?: number, end?: number): Uint8Array<ArrayBuffer> {
    if (start !== undefined || end !== undefined) return super.slice(start, end);
    let top = this.length;
    while (top > 0 && isZero(this, Math.max(0, top - BLOCK), top)) top = Math.max(0, top - BLOCK);
    const snapshot = new MemorySnapshot(top);
    snapshot.set(this.subarray(0, top));
    snapshot.fullLength = this.length;
    if (this.counted) {
      this.counted.copies++;
      this.counted.copiedBytes += top;
      this.counted.memoryBytes = this.length;
    }
    return snapshot;
  }

  override set(source: ArrayLike<number>, offset?: number): void {
    if (!(source instanceof MemorySnapshot) || (offset ?? 0) !== 0) {
      super.set(source, offset);
      return;
    }
    super.set(source);
    const end = Math.min(source.fullLength, this.length);
    for (let at = source.length; at < end; at += BLOCK) {
      const blockEnd = Math.min(end, at + BLOCK);
      if (!isZero(this, at, blockEnd)) this.fill(0, at, blockEnd);
    }
  }
}

type Create = (options?: PGliteOptions) => Promise<PGlite>;

/**
 * Runs `run` with the instance initdb runs PostgreSQL in (PGlite creates it through PGlite.create with noInitDb)
 * showing its memory to initdb as a SparseMemoryView: initdb copies that memory (`Module.HEAPU8.slice()`, 128 MB
 * resident in the copy) and writes the copy back (`.set()`) before each of PostgreSQL's five runs, which made all of
 * the memory resident too; ~11 MB of it was ever written. Nothing else sees the view: the instance itself reads its
 * memory through its own reference.
 */
async function withSparseInitdbMemory(copies: InitdbMemoryCopies, run: () => Promise<void>): Promise<void> {
  const target = PGlite as unknown as { create: Create };
  const create = target.create;
  target.create = async (options?: PGliteOptions): Promise<PGlite> => {
    const pg = await create.call(PGlite, options);
    if (options?.noInitDb) {
      const mod = pg.Module;
      const view = (): SparseMemoryView => new SparseMemoryView(mod.HEAPU8.buffer, copies);
      const shown = new Proxy(mod, { get: (m, key) => (key === 'HEAPU8' ? view() : Reflect.get(m, key)) });
      Object.defineProperty(pg, 'Module', { get: () => shown });
    }
    return pg;
  };
  try {
    await run();
  } finally {
    target.create = create;
  }
}

/**
 * Creates a new database in the empty folder (initdb, with initdbArgs after PGlite's own): the child process's one
 * job. It stops once initdb's files are on disk (CreationFS): the store's first open starts PostgreSQL on them and
 * creates the extension.
 */
export async function createPgliteHere(folder: string, initdbArgs: string[]): Promise<InitdbMemoryCopies> {
  const copies: InitdbMemoryCopies = { copies: 0, copiedBytes: 0, memoryBytes: 0 };
  await withSparseInitdbMemory(copies, async () => {
    try {
      // Returns only if PGlite no longer syncs between initdb and starting PostgreSQL: then it started, and closes.
      const db = await PGlite.create({ fs: new CreationFS(folder), initDbStartParams: initdbArgs });
      await db.close();
    } catch (err) {
      if (!(err instanceof InitdbDone)) throw err;
    }
  });
  if (!existsSync(path.join(folder, 'PG_VERSION'))) throw new Error(`initdb left no database in ${folder}`);
  return copies;
}
