import { mkdir } from 'node:fs/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { QueryOptions, SqlDatabase, SqlExecutor, SqlResult, SqlValue } from '../sql.js';
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
    async exec(text: string): Promise<void> {
      await target.exec(text);
    },
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

export interface PgliteOptions {
  /** Checkpoint once the log has grown by this much since the last checkpoint (tests make these small). */
  walCheckpointBytes?: number;
  /** Look at the log's growth every this many transactions. */
  walCheckEvery?: number;
}

/** The embedded engine, and the size of its WASM memory (grown by shared_buffers, work_mem, index builds; never shrinks). */
export type PgliteDatabase = SqlDatabase & { wasmBytes(): number };

/**
 * The embedded engine: PostgreSQL compiled to WASM, persisted under dataDir (or in memory when dataDir is null).
 * Every query runs synchronously in WASM and blocks its thread, so the service only uses this inside the store
 * worker thread (workers/store.worker.ts).
 */
export async function openPglite(dataDir: string | null, options: PgliteOptions = {}): Promise<PgliteDatabase> {
  if (dataDir) await mkdir(dataDir, { recursive: true });
  const db = await PGlite.create({
    ...(dataDir ? { dataDir } : {}),
    extensions: { vector },
    startParams: [...PGlite.defaultStartParams, ...WAL_START_PARAMS],
  });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  const statements = new PgliteStatements(db);
  const { walCheckpointBytes = WAL_CHECKPOINT_BYTES, walCheckEvery = WAL_CHECK_EVERY } = options;
  let transactions = 0;
  const boundWal = async (): Promise<void> => {
    if (++transactions % walCheckEvery !== 0) return;
    const { rows } = await db.query<{ grown: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::text AS grown FROM pg_control_checkpoint()');
    if (Number(rows[0]?.grown ?? 0) > walCheckpointBytes) await db.exec('CHECKPOINT');
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
  };
}
