import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SqlDatabase } from './sql.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;
/** Serialises concurrent start-ups against one PostgreSQL server (an arbitrary constant key). */
const MIGRATION_LOCK_KEY = 7_100_310_421;

export class SchemaTooNewError extends Error {
  override name = 'SchemaTooNewError';
}

/** Reads sql/NNNN_name.sql files in version order; refuses gaps and duplicates, which would hide a mistake. */
export async function loadMigrations(dir: string): Promise<Migration[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  for (const fileName of names) {
    const match = FILE_NAME.exec(fileName);
    if (!match) throw new Error(`Migration file name '${fileName}' is not of the form NNNN_change_name.sql`);
    const version = Number(match[1]);
    const expected = migrations.length + 1;
    if (version !== expected) throw new Error(`Migration ${fileName}: expected version ${expected} (no gaps)`);
    migrations.push({ version, name: match[2]!, sql: await readFile(path.join(dir, fileName), 'utf8') });
  }
  return migrations;
}

/**
 * Applies pending migrations, each in its own transaction together with its record in schema_migrations, so a
 * failure leaves the database at the last complete version. A database whose schema is newer than this code
 * knows is refused: running old code on it could corrupt data.
 */
export async function migrate(db: SqlDatabase, migrations: Migration[]): Promise<{ from: number; to: number }> {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const known = migrations.at(-1)?.version ?? 0;
  const applied = new Set((await db.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
  const current = Math.max(0, ...applied);
  if (current > known) {
    throw new SchemaTooNewError(
      `The database schema is at version ${current}, newer than this filesift knows (${known}). ` +
        `Upgrade filesift, or point it at another data directory / database.`,
    );
  }
  for (const migration of migrations) {
    // Applied before this start: nothing to lock for (a start with nothing to apply costs one query, not a
    // transaction per migration: 12 of them were 30-60 CPU-ms of every PGlite start).
    if (applied.has(migration.version)) continue;
    await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version]);
      if (done.rows.length > 0) return;
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    });
  }
  return { from: current, to: known };
}

export async function currentVersion(db: SqlDatabase): Promise<number> {
  const result = await db.query<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  return result.rows[0]?.version ?? 0;
}
