/**
 * The one shape of SQL access shared by both engines (PGlite in its worker thread, node-postgres in-process).
 * Repositories are written against these interfaces only, so the same SQL runs on both.
 */
export type SqlValue = string | number | boolean | null | Date | string[] | number[] | Uint8Array;

export interface SqlResult<Row> {
  rows: Row[];
  affectedRows?: number;
}

export interface QueryOptions {
  /**
   * The caller runs this text often (a search statement): keep it prepared, parsed and analysed once. PGlite
   * honours it (parsing and planning in WASM cost up to a fifth of a search query); on a server they take a
   * fraction of a millisecond and node-postgres would keep every prepared text of every pooled connection for
   * good, so the PostgreSQL engine runs the statement unnamed. Results are the same either way.
   */
  prepare?: boolean;
}

export interface SqlExecutor {
  query<Row = Record<string, unknown>>(text: string, params?: readonly SqlValue[], options?: QueryOptions): Promise<SqlResult<Row>>;
  /**
   * Runs a statement whose every column is bytea (or bytesColumn()'s form of one) and answers each row's fields as
   * raw bytes (null for NULL): how the keyword index's posting blocks leave the database. PGlite sends them in the
   * binary result format (its text format would hex-encode them and decode each byte in JavaScript: 10x slower for
   * 2 MB); node-postgres decodes bytea's hex, and bytesColumn()'s base64, into Buffers natively. Kept prepared on
   * PGlite, like `{ prepare: true }`.
   */
  queryBytes(text: string, params?: readonly SqlValue[]): Promise<(Uint8Array | null)[][]>;
  /**
   * queryBytes() for a reader that keeps nothing of the bytes: `read` runs on the rows as soon as they arrive and
   * its answer is answered; the rows may be views on a buffer the engine reuses for its next statement, so `read`
   * must copy (decode) what it keeps. Saves a search's allocations outside the heap (PGlite).
   */
  readBytes<T>(text: string, params: readonly SqlValue[], read: (rows: (Uint8Array | null)[][]) => T): Promise<T>;
  /**
   * How a large bytea column of a queryBytes/readBytes statement is written on this engine: as it is on PGlite
   * (binary results); `encode(expr, 'base64')` on a server, whose text results would hex-encode it (twice its
   * size; node-postgres reads every field as text): the server's encoding and the transfer of a search's 1.4 MB of
   * postings at 100k files took 37 ms in hex, 22 in base64. queryBytes turns such a text column back into bytes.
   */
  bytesColumn(expr: string): string;
  /** Runs several statements separated by semicolons, without parameters (migrations). */
  exec(text: string): Promise<void>;
}

export interface SqlDatabase extends SqlExecutor {
  /** The engine behind it: PGlite has no autovacuum and one connection, which maintenance takes into account. */
  readonly engine: 'pglite' | 'postgres';
  /** Runs fn inside BEGIN/COMMIT; rolls back when it throws. */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}
