/**
 * What a model change needs of the store: which indexed files still carry chunks of another model, their
 * stored text (re-embedding never re-parses a file), and swapping a file's chunks for the new model's. Every
 * write is conditional on the file still having the content it was read with, so a file re-indexed meanwhile
 * (it changed on disk) is never overwritten with embeddings of its old text.
 */
import type { SqlDatabase } from '../sql.js';
import { copyChunks, replaceChunks } from './files.repository.js';
import type { ChunkRow } from './files.types.js';

/** An indexed file whose chunks were not made by the active model. */
export interface StaleFile {
  id: number;
  path: string;
}

/** What re-embedding a file starts from. */
export interface EmbeddingSource {
  id: number;
  path: string;
  status: 'indexed' | 'failed';
  title: string;
  content: string;
  contentHash: string | null;
  embeddingModel: string;
}

export interface EmbeddingsWrite {
  fileId: number;
  /** The content the chunks were computed from: nothing is written when the file has changed since. */
  contentHash: string;
  /** Identity of the model that made the chunks ('kind:model'). */
  embeddingModel: string;
  chunks: ChunkRow[];
}

export interface EmbeddingsRepository {
  /** Indexed files whose embedding model is not `model`, in id order after `afterId` (keyset paging). */
  stale(model: string, afterId: number, limit: number): Promise<StaleFile[]>;
  /** How many indexed files are not embedded with `model`. */
  countStale(model: string): Promise<number>;
  /** Indexed files per embedding model ('' = none). */
  countByModel(): Promise<Record<string, number>>;
  /** Stored vectors per model and dimension (what the vector index holds). */
  chunkSummary(): Promise<{ model: string; dim: number; chunks: number }[]>;
  source(id: number): Promise<EmbeddingSource | null>;
  /** Replaces the file's chunks and embedding model; false (nothing written) if its content changed meanwhile. */
  replace(write: EmbeddingsWrite): Promise<boolean>;
  /**
   * Gives file `toId` a copy of the chunks of `fromId` (identical content, already embedded with the model);
   * false when either file no longer has `contentHash`.
   */
  copy(fromId: number, toId: number, contentHash: string): Promise<boolean>;
}

export function createEmbeddingsRepository(db: SqlDatabase): EmbeddingsRepository {
  return {
    async stale(model, afterId, limit) {
      const { rows } = await db.query<StaleFile>(
        `SELECT id, path FROM files WHERE status = 'indexed' AND embedding_model <> $1 AND id > $2 ORDER BY id LIMIT $3`,
        [model, afterId, limit],
      );
      return rows.map((r) => ({ id: Number(r.id), path: r.path }));
    },

    async countStale(model) {
      // The two ranges of files_embedding_model_idx around the model, not a scan of every file (sql/0011): a
      // btree cannot serve `<>`, and given `a < m OR a > m` the planner may filter a whole-index scan instead. Scans
      // are off because a table that ANALYZE has not seen since a bulk run may look small enough to read whole.
      return db.transaction(async (tx) => {
        await tx.exec('SET LOCAL enable_seqscan = off');
        const { rows } = await tx.query<{ n: number }>(
          `SELECT ((SELECT count(*) FROM files WHERE status = 'indexed' AND embedding_model < $1)
                 + (SELECT count(*) FROM files WHERE status = 'indexed' AND embedding_model > $1))::int AS n`,
          [model],
        );
        return rows[0]?.n ?? 0;
      });
    },

    async countByModel() {
      const { rows } = await db.query<{ model: string; n: number }>(
        `SELECT embedding_model AS model, count(*)::int AS n FROM files WHERE status = 'indexed' GROUP BY embedding_model ORDER BY embedding_model`,
      );
      return Object.fromEntries(rows.map((r) => [r.model, r.n]));
    },

    async chunkSummary() {
      const { rows } = await db.query<{ model: string; dim: number; chunks: number }>(
        `SELECT model, dim::int AS dim, count(*)::int AS chunks FROM chunks GROUP BY model, dim ORDER BY model, dim`,
      );
      return rows;
    },

    async source(id) {
      const { rows } = await db.query<{
        id: number;
        path: string;
        status: 'indexed' | 'failed';
        title: string;
        content: string;
        content_hash: string | null;
        embedding_model: string;
      }>(`SELECT id, path, status, title, content, content_hash, embedding_model FROM files WHERE id = $1`, [id]);
      const r = rows[0];
      if (!r) return null;
      return {
        id: Number(r.id),
        path: r.path,
        status: r.status,
        title: r.title,
        content: r.content,
        contentHash: r.content_hash,
        embeddingModel: r.embedding_model,
      };
    },

    replace(write) {
      return db.transaction(async (tx) => {
        const { rows } = await tx.query<{ id: number }>(
          `UPDATE files SET embedding_model = $3, chunk_count = $4
           WHERE id = $1 AND content_hash = $2 AND status = 'indexed' RETURNING id`,
          [write.fileId, write.contentHash, write.embeddingModel, write.chunks.length],
        );
        if (rows.length === 0) return false;
        await replaceChunks(tx, db.engine, write.fileId, write);
        return true;
      });
    },

    copy(fromId, toId, contentHash) {
      return db.transaction(async (tx) => {
        const { rows } = await tx.query<{ id: number }>(
          `UPDATE files AS t SET embedding_model = s.embedding_model, chunk_count = s.chunk_count
           FROM files AS s
           WHERE t.id = $2 AND s.id = $1 AND t.content_hash = $3 AND s.content_hash = $3 AND t.status = 'indexed'
             AND s.status = 'indexed'
           RETURNING t.id`,
          [fromId, toId, contentHash],
        );
        if (rows.length === 0) return false;
        await copyChunks(tx, db.engine, toId, fromId);
        return true;
      });
    },
  };
}
