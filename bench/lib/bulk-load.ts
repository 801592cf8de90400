/**
 * Fills a ladder rung directly, 10–20× faster than through the API on PGlite: the synthetic files' rows written in
 * batches into the store's tables (the keyword index's triggers build the postings exactly as they do for the
 * service), each file chunked and embedded in-process by the embedder the service would pick for that data
 * directory (pipeline/task.ts embedText: same chunks, same vectors, same model label, so nothing is re-embedded),
 * then the vector index's tail packed into its lists, the keyword tail sealed and the statistics refreshed by the
 * store's own upkeep methods (the packing in larger slices than the service's). What differs from the service: no analysis (the title is
 * the file's first line; no summary or keywords). Search cost depends on the index, not on how it was filled; the
 * stall figure still comes from a real bulk run through the API (ladder.ts).
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { modelPullFromEnv } from '../../src/config.js';
import { resolveEmbedder } from '../../src/models/resolve.js';
import { loadEmbedder } from '../../src/pipeline/embedders/index.js';
import { embedText } from '../../src/pipeline/task.js';
import { openPglite } from '../../src/store/engines/pglite.js';
import { openPostgres } from '../../src/store/engines/postgres.js';
import { vectorLiteral } from '../../src/store/repositories/files.repository.js';
import type { SqlDatabase } from '../../src/store/sql.js';
import { pgliteDir } from '../../src/store/spawn.js';
import { createStore } from '../../src/store/store.js';
import { applyKeywordSchema } from './keyword-db.js';

const BATCH = 200;

export interface BulkTarget {
  /** The service's data directory (PGlite's database, or only the models folder with `pgUrl`). */
  dataDir: string;
  /** A PostgreSQL database to fill instead of PGlite. */
  pgUrl?: string;
}

/** Writes `files` (paths of .txt files) into the index at `target`; answers the seconds spent per step. */
export async function bulkLoad(target: BulkTarget, files: readonly string[], log: (line: string) => void): Promise<{ load: number; vectorIndex: number; seal: number }> {
  const active = resolveEmbedder({ model: modelPullFromEnv(process.env).model, modelDir: process.env.FILESIFT_MODEL_DIR ?? null, dataDir: target.dataDir });
  if (!active.description.ok || active.identity === null) throw new Error(`no embedder for the bulk load: ${active.description.ok ? '' : active.description.reason}`);
  const embedder = await loadEmbedder({ modelDir: active.modelDir ?? undefined, builtinDir: active.builtinDir });
  const db: SqlDatabase = target.pgUrl ? await openPostgres(target.pgUrl) : await openPglite(pgliteDir(target.dataDir));
  try {
    await applyKeywordSchema(db);
    const t0 = performance.now();
    for (let start = 0; start < files.length; start += BATCH) {
      await insertBatch(db, files.slice(start, start + BATCH), active.identity, embedder);
      if ((start / BATCH) % 25 === 24) log(`  … ${start + BATCH} files loaded (${((start + BATCH) / ((performance.now() - t0) / 1000)).toFixed(0)} files/s)`);
    }
    const t1 = performance.now();
    const store = createStore(db);
    while ((await store.search.maintainVectors(5000)).more);
    const t2 = performance.now();
    while ((await store.search.sealKeywords(20_000)).remaining > 0);
    for (let part = 0; await store.search.analyze(part); part++);
    const t3 = performance.now();
    return { load: (t1 - t0) / 1000, vectorIndex: (t2 - t1) / 1000, seal: (t3 - t2) / 1000 };
  } finally {
    await db.close();
    await embedder.close();
  }
}

async function insertBatch(db: SqlDatabase, paths: readonly string[], model: string, embedder: Parameters<typeof embedText>[2]): Promise<void> {
  const rows: Record<string, unknown>[] = [];
  const chunks: Record<string, unknown>[] = [];
  for (const [ord, file] of paths.entries()) {
    const [text, facts] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
    const title = text.slice(0, text.indexOf('\n') < 0 ? 0 : text.indexOf('\n')).trim();
    const embedded = await embedText(text, title, embedder);
    const modified = facts.mtime.toISOString();
    rows.push({ ord, path: file, filename: path.basename(file), size: facts.size, modified, mtime_ms: facts.mtimeMs, title, content: text, chunk_count: embedded.chunks.length });
    for (const c of embedded.chunks) {
      chunks.push({ ord, idx: c.index, start_char: c.start, end_char: c.end, embedding: vectorLiteral(c.embedding) });
    }
  }
  await db.transaction(async (tx) => {
    const { rows: ids } = await tx.query<{ id: number; ord: number }>(
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(ord integer, path text, filename text, size bigint,
           modified timestamptz, mtime_ms float8, title text, content text, chunk_count integer)
       ), ins AS (
         INSERT INTO files (path, filename, extension, size, created, modified, accessed, mtime_ms, content_hash, format, mime,
                            title, content, status, summarizer, embedding_model, chunk_count)
         SELECT path, filename, 'txt', size, modified, modified, modified, mtime_ms, md5(content), 'text', 'text/plain',
                title, content, 'indexed', 'local', $2, chunk_count
         FROM input ORDER BY ord
         RETURNING id, path
       )
       SELECT ins.id, input.ord FROM ins JOIN input USING (path)`,
      [JSON.stringify(rows), model],
    );
    const idOf = new Map(ids.map((r) => [r.ord, r.id]));
    await tx.query(
      `INSERT INTO chunks (file_id, idx, start_char, end_char, model, dim, embedding)
       SELECT (m.ids::jsonb ->> c.ord::text)::bigint, c.idx, c.start_char, c.end_char, $3, $4, c.embedding::vector
       FROM jsonb_to_recordset($1::jsonb) AS c(ord integer, idx integer, start_char integer, end_char integer, embedding text),
            (SELECT $2::text AS ids) m`,
      [JSON.stringify(chunks), JSON.stringify(Object.fromEntries(idOf)), model, embedder.info.dimension],
    );
  });
}
