import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { QueryOptions, SqlDatabase, SqlExecutor, SqlResult, SqlValue } from '../sql.js';
import { ensurePgliteCreated, memoryTemplate, pgliteInstance } from './pglite-create.js';
import { PgliteStatements } from './pglite-statements.js';

/**
 * Queries on the database, or inside one of its transactions. Prepared statements take the same locks PGlite's
 * query() takes: outside a transaction the transaction lock too, so they never run inside someone else's.
 */
function executor(db: PGlite, statements: PgliteStatements, tx: Transaction | null): SqlExecutor {
  const target = tx ?? db;
  return {
    async query<Row>(text: string, params: readonly SqlValue[] = [], options: QueryOptions = {}): Promise<SqlResult<Row>> {
      if (options.prepare) {
        const run = () => db._runExclusiveQuery(() => statements.run<Row>(text, params));
        if (tx) return run();
        return db._runExclusiveTransaction(async () => {
          const result = await run();
          await db.syncToFs();
          return result;
        });
      }
      const result = await target.query<Row>(text, params as unknown[]);
      return { rows: result.rows, affectedRows: result.affectedRows };
    },
    async queryBytes(text: string, params: readonly SqlValue[] = []): Promise<(Uint8Array | null)[][]> {
      const run = () => db._runExclusiveQuery(() => statements.runBytes(text, params));
      if (tx) return run();
      return db._runExclusiveTransaction(run);
    },
    async readBytes<T>(text: string, params: readonly SqlValue[], read: (rows: (Uint8Array | null)[][]) => T): Promise<T> {
      // The query lock is held until `read` returns: the reply buffer it reads is refilled by the next statement.
      const run = () => db._runExclusiveQuery(() => statements.readBytes(text, params, read));
      if (tx) return run();
      return db._runExclusiveTransaction(run);
    },
    async exec(text: string): Promise<void> {
      await target.exec(text);
    },
    bytesColumn: (expr) => expr, // binary results: the bytes as they are
  };
}

/**
 * PGlite runs PostgreSQL in single-user mode: no checkpointer process, so nothing checkpoints while it runs and
 * the write-ahead log grows by everything written (1.07 GB after indexing 5,400 documents, beside 410 MB of
 * data); and a CHECKPOINT keeps segments for reuse up to max_wal_size (1 GB by default). So the engine checkpoints
 * itself once the log has grown by WAL_CHECKPOINT_BYTES, checked every WAL_CHECK_EVERY transactions (a cheap
 * control-file read), and starts with max_wal_size at its floor (two 16 MB segments): nothing but our own trigger
 * checkpoints here, so the setting only decides how much log a checkpoint keeps on disk (64 MB kept four segments).
 */
const WAL_START_PARAMS = ['-c', 'max_wal_size=32MB', '-c', 'min_wal_size=32MB'];
const WAL_CHECKPOINT_BYTES = 48 * 1024 * 1024;
const WAL_CHECK_EVERY = 200;

/**
 * PGlite's `shared_buffers`, chosen at each open from the database's size on disk. PGlite allocates them zeroed
 * inside its WASM memory, so every megabyte is resident from the start: PostgreSQL's default 128 MB made a third
 * of an idle service with an empty index (measured: store thread 304 → 175 MB RSS with 16 MB). A database smaller
 * than the default gets twice its size (so it still fits after growing) rounded up to 16 MB, at least 16 MB;
 * one of 64 MB or more keeps the default, which searches were measured with (README "Search latency").
 * No more at any size: from a gigabyte of data (~80,000 files) they were doubled while the vector index was an HNSW
 * graph that a semantic search walked page by page (195 MB at 100k files); the vector lists read a few packed lists
 * a search, and 256 MB cost the same CPU a search as 128 at 100k files and on a whole home directory (2.2 GB)
 * while holding 128 MB more for as long as the service runs (docs/benchmarks/memory.md, stop 65).
 * Fixed until the next start: a first bulk run on an empty index runs with the floor.
 */
export const SHARED_BUFFERS_MB = { floor: 16, step: 16, ceiling: 128 } as const;

export function sharedBuffersMb(databaseBytes: number): number {
  const { floor, step, ceiling } = SHARED_BUFFERS_MB;
  const wanted = Math.ceil((2 * databaseBytes) / (step * 1024 * 1024)) * step;
  return Math.min(ceiling, Math.max(floor, wanted));
}

/** The bytes of the database's relations (`base/`: tables and indexes, not the log); 0 for a new one. */
async function databaseBytes(dataDir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(path.join(dataDir, 'base'), { recursive: true, withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  const sizes = await Promise.all(entries.filter((e) => e.isFile()).map(async (e) => (await stat(path.join(e.parentPath, e.name))).size));
  return sizes.reduce((a, b) => a + b, 0);
}

export interface PgliteOptions {
  /** Checkpoint once the log has grown by this much since the last checkpoint (tests make these small). */
  walCheckpointBytes?: number;
  /** Look at the log's growth every this many transactions. */
  walCheckEvery?: number;
  /**
   * A new database from the build's template (pgvector and the schema in it: pglite-template.ts) when one fits;
   * false: always as initdb makes it (tests of the migrations). Default true.
   */
  template?: boolean;
  /** Test seam: this `shared_buffers` (MB) instead of the one sized from the database (sharedBuffersMb). */
  sharedBuffersMb?: number;
  /**
   * Runs a due checkpoint (the log's check, then CHECKPOINT if it has grown past the bound). By default it runs at
   * the end of the transaction that made it due, inside that call; the store worker hands it to its call gate as a
   * call of its own, so that a search waiting meanwhile goes first and no write's call carries a checkpoint's time
   * (150–320 ms on an idle copy of a 100,000-file index; ≤ 122 ms in bench:search's stall run on it).
   */
  runCheckpoint?: (checkpoint: () => Promise<void>) => void;
}

/** The embedded engine, and the size of its WASM memory (grown by shared_buffers, work_mem, index builds; never shrinks). */
export type PgliteDatabase = SqlDatabase & { wasmBytes(): number; sharedBuffersMb: number };

/**
 * The embedded engine: PostgreSQL compiled to WASM, persisted under dataDir (or in memory when dataDir is null).
 * Every query runs synchronously in WASM and blocks its thread, so the service only uses this inside the store
 * worker thread (workers/store.worker.ts).
 */
export async function openPglite(dataDir: string | null, options: PgliteOptions = {}): Promise<PgliteDatabase> {
  const buffersMb = options.sharedBuffersMb ?? sharedBuffersMb(dataDir ? await databaseBytes(dataDir) : 0);
  const startParams = [...PGlite.defaultStartParams, ...WAL_START_PARAMS, '-c', `shared_buffers=${buffersMb}MB`];
  // A new database is copied from the build's template, or created by a child process, never by the instance the
  // store keeps (pglite-create.ts); one in memory loads the template's tar when there is one.
  const template = options.template ?? true;
  if (dataDir) await ensurePgliteCreated(dataDir, template ? {} : { templateDir: null });
  const db = await pgliteInstance(dataDir, startParams, dataDir || !template ? undefined : await memoryTemplate());
  // A new database gets the extension at its first open (its creation stops after initdb); CREATE EXTENSION IF
  // NOT EXISTS at every open cost 30-70 CPU-ms (80-190 ms of a restart at load 8-10), the catalog lookup ~5.
  const { rows } = await db.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'");
  if (rows.length === 0) await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  const statements = new PgliteStatements(db);
  const { walCheckpointBytes = WAL_CHECKPOINT_BYTES, walCheckEvery = WAL_CHECK_EVERY } = options;
  let transactions = 0;
  const checkpoint = async (): Promise<void> => {
    const { rows } = await db.query<{ grown: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::text AS grown FROM pg_control_checkpoint()');
    if (Number(rows[0]?.grown ?? 0) > walCheckpointBytes) await db.exec('CHECKPOINT');
  };
  const boundWal = async (): Promise<void> => {
    if (++transactions % walCheckEvery !== 0) return;
    if (options.runCheckpoint) options.runCheckpoint(checkpoint);
    else await checkpoint();
  };
  return {
    engine: 'pglite',
    ...executor(db, statements, null),
    transaction: async <T>(fn: (tx: SqlExecutor) => Promise<T>) => {
      const result = await db.transaction((tx) => fn(executor(db, statements, tx)));
      await boundWal();
      return result;
    },
    close: () => db.close(),
    wasmBytes: () => db.Module.HEAPU8.byteLength,
    sharedBuffersMb: buffersMb,
  };
}
