import { mkdir } from 'node:fs/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { SqlDatabase, SqlExecutor, SqlResult, SqlValue } from '../sql.js';

function executor(target: PGlite | Transaction): SqlExecutor {
  return {
    async query<Row>(text: string, params: readonly SqlValue[] = []): Promise<SqlResult<Row>> {
      const result = await target.query<Row>(text, params as unknown[]);
      return { rows: result.rows, affectedRows: result.affectedRows };
    },
    async exec(text: string): Promise<void> {
      await target.exec(text);
    },
  };
}

/**
 * The embedded engine: PostgreSQL compiled to WASM, persisted under dataDir (or in memory when dataDir is null).
 * Every query runs synchronously in WASM and blocks its thread, so the service only uses this inside the store
 * worker thread (workers/store.worker.ts).
 */
export async function openPglite(dataDir: string | null): Promise<SqlDatabase> {
  if (dataDir) await mkdir(dataDir, { recursive: true });
  const db = await PGlite.create({ ...(dataDir ? { dataDir } : {}), extensions: { vector } });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  return {
    ...executor(db),
    transaction: <T>(fn: (tx: SqlExecutor) => Promise<T>) => db.transaction((tx) => fn(executor(tx))),
    close: () => db.close(),
  };
}
