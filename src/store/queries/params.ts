import type { SqlValue } from '../sql.js';

/** A statement ready for SqlExecutor.query(text, params). */
export interface SqlStatement {
  text: string;
  params: SqlValue[];
}

/**
 * Collects bound parameters while SQL text is assembled. Every placeholder carries an explicit cast, so the
 * same text types identically on PGlite and node-postgres (both send parameters as untyped text).
 */
export class SqlParams {
  readonly values: SqlValue[] = [];

  add(value: SqlValue, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }
}

/** LIKE pattern matching everything strictly under a directory, on a path boundary (/a/b never matches /a/bc). */
export function underPattern(directory: string): string {
  const dir = directory.endsWith('/') ? directory : `${directory}/`;
  return `${dir.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
