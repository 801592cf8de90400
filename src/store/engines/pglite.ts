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
 * The embedded engine: PostgreSQL compiled to WASM, persisted under dataDir (or in memory when dataDir is null).
 * Every query runs synchronously in WASM and blocks its thread, so the service only uses this inside the store
 * worker thread (workers/store.worker.ts).
 */
export async function openPglite(dataDir: string | null): Promise<SqlDatabase> {
  if (dataDir) await mkdir(dataDir, { recursive: true });
  const db = await PGlite.create({ ...(dataDir ? { dataDir } : {}), extensions: { vector } });
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  const statements = new PgliteStatements(db);
  return {
    engine: 'pglite',
    ...executor(db, statements, null),
    transaction: <T>(fn: (tx: SqlExecutor) => Promise<T>) => db.transaction((tx) => fn(executor(db, statements, tx))),
    close: () => db.close(),
  };
}
