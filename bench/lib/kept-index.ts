/**
 * Reads a kept PGlite index (e.g. `npm run bench:corpus -- DIR --keep`) back as the writes that built it, so the
 * store benchmarks (store-profile.ts, long-documents.ts) replay a real corpus without parsing it again.
 */
import { openPglite } from '../../src/store/engines/pglite.js';
import type { IndexedFileWrite } from '../../src/store/repositories/files.types.js';

/**
 * A kept index's indexed files (in id order), as the indexer would write them: rows and, unless `chunks` is false,
 * their chunk vectors. `dataDir` is opened, so it must be a copy.
 */
export async function loadKeptWrites(dataDir: string, options: { limit?: number; chunks?: boolean } = {}): Promise<IndexedFileWrite[]> {
  const fileLimit = options.limit ?? 0;
  const db = await openPglite(dataDir);
  try {
    const { rows } = await db.query<Record<string, unknown>>(
      `SELECT id, path, filename, extension, size, created::text AS created, modified::text AS modified, accessed::text AS accessed,
              mtime_ms, content_hash, format, mime, title, summary, keywords, content, text_truncated, metadata::text AS metadata,
              note, summarizer, embedding_model
       FROM files WHERE status = 'indexed' ORDER BY id ${fileLimit > 0 ? `LIMIT ${fileLimit}` : ''}`,
    );
    const writes: IndexedFileWrite[] = [];
    for (const r of rows) {
      const chunks = options.chunks === false ? { rows: [] } : await db.query<{ idx: number; start_char: number; end_char: number; embedding: string }>(
        'SELECT idx, start_char, end_char, embedding::text AS embedding FROM chunks WHERE file_id = $1 ORDER BY idx',
        [r.id as number],
      );
      writes.push({
        facts: {
          path: r.path as string,
          filename: r.filename as string,
          extension: r.extension as string,
          size: Number(r.size),
          created: r.created as string,
          modified: r.modified as string,
          accessed: r.accessed as string,
        },
        mtimeMs: Number(r.mtime_ms),
        jobId: null,
        contentHash: r.content_hash as string,
        format: r.format as string,
        mime: r.mime as string,
        text: r.content as string,
        textTruncated: r.text_truncated as boolean,
        metadata: JSON.parse(r.metadata as string) as IndexedFileWrite['metadata'],
        note: (r.note as string | null) ?? null,
        analysis: { title: r.title as string, summary: r.summary as string, keywords: r.keywords as string[], provider: (r.summarizer as string | null) ?? 'local' },
        embeddingModel: r.embedding_model as string,
        chunks: chunks.rows.map((c) => ({
          index: c.idx,
          start: c.start_char,
          end: c.end_char,
          text: '',
          embedding: Float32Array.from(JSON.parse(c.embedding) as number[]),
        })),
      });
    }
    return writes;
  } finally {
    await db.close();
  }
}
