import pg from 'pg';
import type { SqlDatabase, SqlExecutor, SqlResult, SqlValue } from '../sql.js';
import { PgvectorMissingError } from './errors.js';

/** int8 as a JS number, as PGlite does: sizes and ids stay far below 2^53. */
const INT8_OID = 20;
const typeParsers = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * The result types of a queryBytes statement: bytea (hex, decoded natively by node-postgres) and the base64 text
 * that bytesColumn() writes, both as bytes.
 */
const BYTES_TYPES = {
  getTypeParser: (oid: number, format?: 'text' | 'binary') =>
    oid === TEXT_OID ? (value: string) => Buffer.from(value, 'base64') : pg.types.getTypeParser(oid, format ?? 'text'),
};
const TEXT_OID = 25;

function executor(target: pg.Pool | pg.PoolClient): SqlExecutor {
  const queryBytes = async (text: string, params: readonly SqlValue[] = []): Promise<(Uint8Array | null)[][]> =>
    (await target.query<(Uint8Array | null)[]>({ text, values: params as unknown[], rowMode: 'array', types: BYTES_TYPES })).rows;
  return {
    async query<Row>(text: string, params: readonly SqlValue[] = []): Promise<SqlResult<Row>> {
      const result = await target.query(text, params as unknown[]);
      return { rows: result.rows as Row[], affectedRows: result.rowCount ?? 0 };
    },
    queryBytes,
    async readBytes<T>(text: string, params: readonly SqlValue[], read: (rows: (Uint8Array | null)[][]) => T): Promise<T> {
      // node-postgres gives each field a Buffer of its own: nothing is reused here.
      return read(await queryBytes(text, params));
    },
    async exec(text: string): Promise<void> {
      await target.query(text);
    },
    bytesColumn: (expr) => `encode(${expr}, 'base64')`,
  };
}

export { PgvectorMissingError };

/** Where the server is, without the password, for messages. */
export function describeDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return '(unparseable DATABASE_URL)';
  }
}

/**
 * A PostgreSQL server through node-postgres. Makes sure pgvector is available: creates the extension if missing,
 * and fails with one clear message if the server does not have it installed.
 */
export async function openPostgres(url: string, options: { max?: number } = {}): Promise<SqlDatabase> {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10, types: typeParsers });
  // An idle client that loses its server must not crash the process; the next query reports the problem.
  pool.on('error', () => undefined);
  try {
    await pool.query('CREATE EXTENSION IF NOT EXISTS vector');
  } catch (err) {
    await pool.end();
    const reason = err instanceof Error ? err.message : String(err);
    if (/extension "vector"|vector\.control|could not open extension control file/i.test(reason)) {
      throw new PgvectorMissingError(
        `The PostgreSQL server at ${describeDatabaseUrl(url)} does not have the pgvector extension installed ` +
          `(${reason}). Install pgvector on the server (e.g. use the pgvector/pgvector Docker image), ` +
          `or unset DATABASE_URL to use the embedded database.`,
      );
    }
    throw new Error(`Cannot use the PostgreSQL server at ${describeDatabaseUrl(url)}: ${reason}`);
  }
  return {
    engine: 'postgres',
    ...executor(pool),
    async transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(executor(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
