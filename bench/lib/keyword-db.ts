/**
 * A database with the service's schema (migrations, keyword index included), and a bulk loader of file rows, for
 * the ranking experiment and the keyword tests. The rows go into the real files table; the keyword index's
 * triggers build segments, postings and statistics exactly as they do for the service.
 */
import { migrationsDir } from '../../src/paths.js';
import { loadMigrations, migrate } from '../../src/store/migrate.js';
import type { SqlDatabase, SqlExecutor } from '../../src/store/sql.js';

/** Applies the numbered migrations, then `extraSql` (an experiment's variant). */
export async function applyKeywordSchema(db: SqlDatabase, extraSql = ''): Promise<void> {
  await migrate(db, await loadMigrations(migrationsDir));
  if (extraSql.trim() !== '') await db.exec(extraSql);
}

/** A file row as the store would write it (only what ranking and filters read). */
export interface FileRowInput {
  path: string;
  filename: string;
  extension: string;
  size?: number;
  created?: string;
  modified?: string;
  title?: string;
  summary?: string;
  keywords?: string[];
  content?: string;
  status?: 'indexed' | 'failed';
}

/** Inserts rows in batches (one statement each, via jsonb_to_recordset); answers the new ids in input order. */
export async function insertFiles(db: SqlExecutor, rows: readonly FileRowInput[], batchSize = 100): Promise<number[]> {
  const ids: number[] = [];
  for (let start = 0; start < rows.length; start += batchSize) {
    const batch = rows.slice(start, start + batchSize).map((r, i) => ({
      ord: i,
      path: r.path,
      filename: r.filename,
      extension: r.extension,
      size: r.size ?? 0,
      created: r.created ?? null,
      modified: r.modified ?? null,
      title: r.title ?? '',
      summary: r.summary ?? '',
      keywords: r.keywords ?? [],
      content: r.content ?? '',
      status: r.status ?? 'indexed',
    }));
    const { rows: inserted } = await db.query<{ id: number; ord: number }>(
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(ord integer, path text, filename text, extension text,
           size bigint, created timestamptz, modified timestamptz, title text, summary text, keywords text[],
           content text, status text)
       ), ins AS (
         INSERT INTO files (path, filename, extension, size, created, modified, title, summary, keywords, content, status)
         SELECT path, filename, extension, size, created, modified, title, summary, keywords, content, status
         FROM input ORDER BY ord
         RETURNING id, path
       )
       SELECT ins.id, input.ord FROM ins JOIN input USING (path) ORDER BY input.ord`,
      [JSON.stringify(batch)],
    );
    ids.push(...inserted.map((r) => r.id));
  }
  return ids;
}
