import { decodeInt8, decodeText, decodeTextArray, decodeTimestamptz } from '../binary.js';
import { underPattern } from '../queries/params.js';
import { toIso } from '../time.js';
import type { SqlDatabase, SqlExecutor, SqlValue } from '../sql.js';
import { holdTail } from '../vectors/vector-lists.js';
import { KEYWORD_SLICE_MS, KEYWORD_SLICE_PIECES, KEYWORD_SLICED_FROM_CHARS, sliceKeywords } from '../keyword/slices.js';
import type { ContentKeysPage, KnownCursor, KnownUnderPage, ExcludedFile, ExcludedFileWrite, FailedFileWrite, FileContentPage, FileRecord, FileStats, FileSummary, IndexedFileWrite, KnownFile } from './files.types.js';

export type * from './files.types.js';

export interface FilesRepository {
  /** State of the given paths (those that are known; excluded ones too, as knownUnderPage answers them). */
  known(paths: string[]): Promise<KnownFile[]>;
  /**
   * State of the files under a directory (the directory itself excluded), for scans, a page from `after` (the
   * first page when absent); files the content check excluded are among them (status 'excluded'), so an unchanged
   * one is not read again. readKnownUnder reads every page, one store call each.
   */
  knownUnderPage(directory: string, after?: KnownCursor): Promise<KnownUnderPage>;
  /** Writes a processed file and replaces its chunks, in one transaction. Answers the file id. */
  saveIndexed(file: IndexedFileWrite): Promise<number>;
  /** Records a file that could not be processed, with its reason (its old chunks are removed). */
  saveFailed(file: FailedFileWrite): Promise<number>;
  /**
   * Keeps a file out of the index because of what it holds (a private key, a token): its files row and chunks
   * go, an excluded_files row records why. Answers whether it had been in the index.
   */
  saveExcluded(file: ExcludedFileWrite): Promise<boolean>;
  /** Why the content check keeps this path out of the index, or null. */
  excluded(path: string): Promise<ExcludedFile | null>;
  /** Content unchanged: refreshes the file-system facts only. */
  touch(path: string, facts: IndexedFileWrite['facts'], mtimeMs: number, jobId: number | null): Promise<number | null>;
  /**
   * The first `chars` characters of the content hashes of the indexed files after file id `afterId`, a page of
   * them (indexing/known-content.ts reads every page, one call each).
   */
  contentKeys(chars: number, afterId?: number): Promise<ContentKeysPage>;
  /** An indexed file with this content and embedding model, other than `exceptPath` (for reuse). */
  findByHash(contentHash: string, embeddingModel: string, exceptPath: string): Promise<number | null>;
  /** Indexes `facts.path` as a copy of file `sourceId` (same content): row and chunks copied, no re-embedding. */
  saveCopy(sourceId: number, facts: IndexedFileWrite['facts'], mtimeMs: number, jobId: number | null): Promise<number>;
  /** Renames a file's path (its content unchanged). False when `from` is unknown. */
  move(from: string, to: string, facts: IndexedFileWrite['facts'], mtimeMs: number, jobId: number | null): Promise<boolean>;
  removePaths(paths: string[]): Promise<string[]>;
  /** Removes every file under a directory; answers the removed paths. */
  removeUnder(directory: string): Promise<string[]>;
  /** Paths of every file in the index (indexed or failed) after `after`, in path order, at most `limit`: pages
   * through a large index without holding it all at once (filter application). */
  listPaths(after: string | null, limit: number): Promise<string[]>;
  get(id: number): Promise<FileRecord | null>;
  /** `length` characters of a file's extracted text from character `offset` (0-based); null for no such file. */
  content(id: number, offset: number, length: number): Promise<FileContentPage | null>;
  stats(): Promise<FileStats>;
}

interface KnownRow {
  id: number;
  path: string;
  size: number;
  mtime_ms: number;
  content_hash: string | null;
  status: KnownFile['status'];
  embedding_model: string;
  job_id: number | null;
}

const KNOWN_COLUMNS = 'id, path, size, mtime_ms, content_hash, status, embedding_model, job_id';
/** excluded_files rows in the shape of KNOWN_COLUMNS (id 0: they have no files row). */
const EXCLUDED_AS_KNOWN = `0 AS id, path, size, mtime_ms, NULL AS content_hash, 'excluded' AS status, '' AS embedding_model, job_id`;

/** A path written to the index is no longer excluded (what it holds changed): $1 the path. */
const FORGET_EXCLUDED = 'DELETE FROM excluded_files WHERE path = $1';

async function forgetExcluded(tx: SqlExecutor, path: string): Promise<void> {
  await tx.query(FORGET_EXCLUDED, [path], { prepare: true });
}

/**
 * Rows of a start-up reconcile's read (every file under a watched folder) per page. A page comes back as one JSON
 * text, parsed by JSON.parse: PGlite decodes each value of a row result in JavaScript, which cost 340–460 CPU ms
 * for the 5,412 files of the Debian corpus at a restart (cold) against 210–280 ms as JSON (warm: ~80 against
 * ~40). Pages bound the text PostgreSQL builds in PGlite's WASM memory, which never shrinks (~4 MB a page).
 */
const KNOWN_PAGE_ROWS = 20_000;

export interface FilesRepositoryOptions {
  /** Rows per page of knownUnderPage and contentKeys (tests cross pages with a few rows). */
  knownPageRows?: number;
  /** Pieces of a long text's keyword index per statement (keyword/slices.ts; 0: all at once, tests compare). */
  keywordSlicePieces?: number;
  /** A slice stops after the piece that reaches this many ms (keyword/slices.ts, KEYWORD_SLICE_MS; 0: one piece). */
  keywordSliceMs?: number;
}


/** Appends one page of a query in the shape of KNOWN_COLUMNS to `into`; returns its number of rows. */
async function knownPage(db: SqlExecutor, select: string, params: SqlValue[], into: KnownFile[]): Promise<number> {
  const { rows } = await db.query<{ page: string }>(
    `SELECT coalesce(json_agg(json_build_array(${KNOWN_COLUMNS})), '[]')::text AS page FROM (${select}) k`,
    params,
  );
  const page = JSON.parse(rows[0]?.page ?? '[]') as [number, string, number, number, string | null, KnownFile['status'], string, number | null][];
  for (const [id, path, size, mtime_ms, content_hash, status, embedding_model, job_id] of page) {
    into.push(toKnown({ id, path, size, mtime_ms, content_hash, status, embedding_model, job_id }));
  }
  return page.length;
}

function toKnown(r: KnownRow): KnownFile {
  return {
    id: r.id,
    path: r.path,
    size: r.size,
    mtimeMs: r.mtime_ms,
    contentHash: r.content_hash,
    status: r.status,
    embeddingModel: r.embedding_model,
    jobId: r.job_id,
  };
}

/** The columns of a FileSummary, on the files row `f`. */
export const FILE_SUMMARY_COLUMNS = 'f.id, f.path, f.filename, f.extension, f.created, f.modified, f.accessed, f.title, f.summary, f.keywords, f.size, f.status';

/** A files row (selected with FILE_SUMMARY_COLUMNS) as a FileSummary: the one mapping of a file's identity. */
export function toFileSummary(r: Record<string, unknown>): FileSummary {
  return {
    id: r.id as number,
    file_path: r.path as string,
    filename: r.filename as string,
    extension: r.extension as string,
    created: toIso(r.created),
    modified: toIso(r.modified),
    accessed: toIso(r.accessed),
    title: r.title as string,
    summary: r.summary as string,
    keywords: r.keywords as string[],
    size: r.size as number,
    status: r.status as FileSummary['status'],
  };
}

/**
 * The same columns in the binary format, for SqlExecutor.readBytes (every column bytea): how a search's result
 * rows leave the database (PGlite decodes its text format value by value in JavaScript; 50 rows cost ~0.8 ms more
 * that way, bench:search-profile "result rows"). `fileSummaryFromBytes` reads them; both mappings give the same
 * FileSummary (test/store/repositories/search.repository.test.ts).
 */
export const FILE_SUMMARY_BYTES_COLUMNS = [
  'int8send(f.id)',
  'textsend(f.path)',
  'textsend(f.filename)',
  'textsend(f.extension)',
  'timestamptz_send(f.created)',
  'timestamptz_send(f.modified)',
  'timestamptz_send(f.accessed)',
  'textsend(f.title)',
  'textsend(f.summary)',
  'array_send(f.keywords)',
  'int8send(f.size)',
  'textsend(f.status)',
].join(', ');

/** A row's first FILE_SUMMARY_BYTES_COLUMNS fields as a FileSummary. */
export function fileSummaryFromBytes(row: readonly (Uint8Array | null)[]): FileSummary {
  return {
    id: decodeInt8(row[0]!),
    file_path: decodeText(row[1]!),
    filename: decodeText(row[2]!),
    extension: decodeText(row[3]!),
    created: decodeTimestamptz(row[4]!),
    modified: decodeTimestamptz(row[5]!),
    accessed: decodeTimestamptz(row[6]!),
    title: decodeText(row[7]!),
    summary: decodeText(row[8]!),
    keywords: decodeTextArray(row[9]!),
    size: decodeInt8(row[10]!),
    status: decodeText(row[11]!) as FileSummary['status'],
  };
}

/** Fields of FILE_SUMMARY_BYTES_COLUMNS: what follows them in a row is the caller's. */
export const FILE_SUMMARY_BYTES_FIELDS = 12;

/**
 * A float32 vector as pgvector's text literal. Nine significant digits give back exactly the same float32
 * (what the column stores), at about half the length of a double's shortest form: parsing the literal is most
 * of the cost of writing a chunk on PGlite (WASM strtof), so the shorter text makes writes measurably cheaper.
 */
export function vectorLiteral(v: Float32Array): string {
  let out = '[';
  for (let i = 0; i < v.length; i++) out += (i > 0 ? ',' : '') + (v[i] as number).toPrecision(9);
  return `${out}]`;
}

/** What upsertFacts did: the file's id, and whether a row for its path was there before (an update, not an insert). */
interface Upserted {
  id: number;
  existed: boolean;
}

/**
 * Upserts the file-system facts and identity of a file, and forgets the path's exclusion (what it holds changed);
 * answers its id and whether the path had a row already. One statement: the exclusion's DELETE rides along as a
 * WITH query (a data-modifying one runs whether read or not), and a caller skips the DELETE of old chunks for a new
 * row, whose id no chunk can hold. Each was a round trip of its own into PGlite (~0.09 CPU ms each a file). A new
 * row is told by its id: the insert draws the next id before it meets a conflict, so the row is new exactly when its
 * id is the one just drawn (on a server too, where another transaction may insert the path meanwhile and the
 * statement then updates that row). The statements of a file's write are kept prepared ({ prepare: true }): they
 * run once per file, and on PGlite parsing and planning them again in WASM each time was part of the files row's
 * cost.
 */
async function upsertFacts(tx: SqlExecutor, file: Pick<IndexedFileWrite, 'facts' | 'mtimeMs' | 'jobId'>, extra: Record<string, SqlValue>): Promise<Upserted> {
  const base: Record<string, SqlValue> = {
    path: file.facts.path,
    job_id: file.jobId,
    filename: file.facts.filename,
    extension: file.facts.extension,
    size: file.facts.size,
    created: file.facts.created,
    modified: file.facts.modified,
    accessed: file.facts.accessed,
    mtime_ms: file.mtimeMs,
    ...extra,
  };
  const columns = Object.keys(base);
  const values = Object.values(base);
  // $1 is the path (base's first column).
  const placeholders = columns.map((c, i) => (c === 'metadata' ? `$${i + 1}::jsonb` : `$${i + 1}`));
  const updates = columns.filter((c) => c !== 'path').map((c) => `${c} = EXCLUDED.${c}`);
  const { rows } = await tx.query<{ id: number; existed: boolean }>(
    `WITH forgotten AS (${FORGET_EXCLUDED})
     INSERT INTO files (${columns.join(', ')}, indexed_at) VALUES (${placeholders.join(', ')}, now())
     ON CONFLICT (path) DO UPDATE SET ${updates.join(', ')}, indexed_at = now()
     RETURNING id, id <> currval(pg_get_serial_sequence('files', 'id')) AS existed`,
    values,
    { prepare: true },
  );
  return rows[0]!;
}

/**
 * Replaces file `toId`'s chunks with copies of file `fromId`'s (identical content: no need to embed again).
 * `replacing` false: `toId` is a row just inserted, with no chunks to delete.
 */
export async function copyChunks(tx: SqlExecutor, engine: SqlDatabase['engine'], toId: number, fromId: number, replacing = true): Promise<void> {
  if (replacing) await tx.query('DELETE FROM chunks WHERE file_id = $1', [toId]);
  await holdTail(tx, engine); // the copies are new chunks of the vector index's tail
  await tx.query(
    `INSERT INTO chunks (file_id, idx, start_char, end_char, model, dim, embedding)
     SELECT $1, idx, start_char, end_char, model, dim, embedding FROM chunks WHERE file_id = $2`,
    [toId, fromId],
  );
}

/**
 * pgvector's limit on a vector's dimension: the chunks of one statement travel packed into one vector of at most
 * this many floats (see replaceChunks).
 */
const PACKED_FLOATS = 16000;

/**
 * Vectors laid end to end as one pgvector value in its binary (receive) format: dimension int16, an unused int16,
 * then the float32s, big-endian. Sent as a binary parameter, the server copies the floats instead of parsing their
 * decimal text: on PGlite that parsing (WASM strtof) was half of a chunk row's cost, ~2 of 4.5 CPU ms per Debian
 * document of 22 chunks, and the floats are exactly the ones the text literal gave back.
 */
export function packedVectors(vectors: readonly Float32Array[]): Uint8Array {
  const floats = vectors.reduce((n, v) => n + v.length, 0);
  if (floats > PACKED_FLOATS) throw new RangeError(`${floats} floats do not fit one vector`);
  const bytes = new Uint8Array(4 + 4 * floats);
  const view = new DataView(bytes.buffer);
  view.setInt16(0, floats);
  let at = 4;
  for (const v of vectors) {
    for (let i = 0; i < v.length; i++, at += 4) view.setFloat32(at, v[i] as number);
  }
  return bytes;
}

/**
 * Replaces a file's chunks with `file.chunks`, each labelled with the model that made it and its dimension. One
 * prepared statement per slice of chunks: positions as integer arrays, the vectors packed into one binary vector
 * that subvector() cuts again, in order (every chunk of a model has its dimension). `replacing` false: the file's row
 * was just inserted, and has no chunks to delete. The chunks join the vector index's tail (vectors/vector-lists.ts):
 * no index is written with them.
 */
export async function replaceChunks(
  tx: SqlExecutor,
  engine: SqlDatabase['engine'],
  fileId: number,
  file: Pick<IndexedFileWrite, 'embeddingModel' | 'chunks'>,
  replacing = true,
): Promise<void> {
  if (replacing) await tx.query('DELETE FROM chunks WHERE file_id = $1', [fileId], { prepare: true });
  const dimension = file.chunks[0]?.embedding.length ?? 0;
  if (dimension === 0) return;
  if (file.chunks.some((c) => c.embedding.length !== dimension)) throw new RangeError('chunks of one file differ in dimension');
  const perStatement = Math.floor(PACKED_FLOATS / dimension);
  if (perStatement < 1) throw new RangeError(`a ${dimension}-d vector exceeds pgvector's ${PACKED_FLOATS} dimensions`);
  await holdTail(tx, engine);
  for (let start = 0; start < file.chunks.length; start += perStatement) {
    const slice = file.chunks.slice(start, start + perStatement);
    await tx.query(
      `INSERT INTO chunks (file_id, idx, start_char, end_char, model, dim, embedding)
       SELECT $1::bigint, c.idx, c.s, c.e, $2::text, $3::integer, subvector($7::vector, (c.n::integer - 1) * $3::integer + 1, $3::integer)
       FROM unnest($4::integer[], $5::integer[], $6::integer[]) WITH ORDINALITY AS c (idx, s, e, n)`,
      [fileId, file.embeddingModel, dimension, slice.map((c) => c.index), slice.map((c) => c.start), slice.map((c) => c.end), packedVectors(slice.map((c) => c.embedding))],
      { prepare: true },
    );
  }
}

/**
 * An indexed file with this content, embedded by this model, at another path: the duplicate lookup, for each new
 * file whose content the index may hold (a second toolchain's documentation: tens of thousands in a row). Only
 * files_content_hash_idx may serve it, whatever the planner's statistics say: `embedding_model = $2` with
 * `status = 'indexed'` is also the partial index files_embedding_model_idx (sql/0011), and where statistics were
 * missing or taken before most files were indexed the planner estimated a few rows there and read every indexed
 * file for each lookup (a home directory at 125,000 files: ~11,000 pages and 40–135 ms a lookup, the bulk run down
 * to 8 files a second; with the model's test alone out of its reach, it still read the whole partial index for its
 * status). IS NOT DISTINCT FROM is the same test for values that are never null, and neither serves an index nor
 * proves a partial index's condition.
 */
export const FIND_BY_HASH_SQL = `SELECT id FROM files
  WHERE content_hash = $1 AND embedding_model IS NOT DISTINCT FROM $2 AND status IS NOT DISTINCT FROM 'indexed' AND path <> $3
  LIMIT 1`;

export function createFilesRepository(db: SqlDatabase, options: FilesRepositoryOptions = {}): FilesRepository {
  const pageRows = options.knownPageRows ?? KNOWN_PAGE_ROWS;
  const slicePieces = options.keywordSlicePieces ?? KEYWORD_SLICE_PIECES;
  const sliceMs = options.keywordSliceMs ?? KEYWORD_SLICE_MS;
  return {
    async known(paths) {
      if (paths.length === 0) return [];
      const { rows } = await db.query<KnownRow>(
        `SELECT ${KNOWN_COLUMNS} FROM files WHERE path = ANY($1::text[])
         UNION ALL SELECT ${EXCLUDED_AS_KNOWN} FROM excluded_files WHERE path = ANY($1::text[])`,
        [paths],
      );
      return rows.map(toKnown);
    },

    async knownUnderPage(directory, after = { fileId: 0 }) {
      const pattern = underPattern(directory);
      const known: KnownFile[] = [];
      // Files by id, then excluded files by path (their key), a page at a time (knownPage says why).
      if ('fileId' in after) {
        const select = `SELECT ${KNOWN_COLUMNS} FROM files WHERE path LIKE $1 AND id > $2 ORDER BY id LIMIT ${pageRows}`;
        const full = (await knownPage(db, select, [pattern, after.fileId], known)) === pageRows;
        return { known, next: full ? { fileId: known[known.length - 1]!.id } : { excludedPath: '' } };
      }
      const select = `SELECT ${EXCLUDED_AS_KNOWN} FROM excluded_files WHERE path LIKE $1 AND path > $2 ORDER BY path LIMIT ${pageRows}`;
      const full = (await knownPage(db, select, [pattern, after.excludedPath], known)) === pageRows;
      return { known, next: full ? { excludedPath: known[known.length - 1]!.path } : null };
    },

    saveIndexed(file) {
      return db.transaction(async (tx) => {
        if (file.text.length > KEYWORD_SLICED_FROM_CHARS) await sliceKeywords(tx, slicePieces, sliceMs);
        const { id, existed } = await upsertFacts(tx, file, {
          content_hash: file.contentHash,
          format: file.format,
          mime: file.mime,
          title: file.analysis.title,
          summary: file.analysis.summary,
          keywords: file.analysis.keywords,
          content: file.text,
          text_truncated: file.textTruncated,
          metadata: JSON.stringify(file.metadata),
          status: 'indexed',
          error_code: null,
          error: null,
          note: file.note,
          summarizer: file.analysis.provider,
          summarizer_fallback: file.analysis.fallbackReason ?? null,
          embedding_model: file.embeddingModel,
          chunk_count: file.chunks.length,
        });
        await replaceChunks(tx, db.engine, id, file, existed);
        return id;
      });
    },

    saveFailed(file) {
      return db.transaction(async (tx) => {
        const { id, existed } = await upsertFacts(tx, file, {
          content_hash: null,
          format: '',
          mime: '',
          title: '',
          summary: '',
          keywords: [],
          content: '',
          text_truncated: false,
          metadata: '{}',
          status: 'failed',
          error_code: file.code,
          error: file.reason,
          note: null,
          summarizer: null,
          summarizer_fallback: null,
          embedding_model: '',
          chunk_count: 0,
        });
        if (existed) await tx.query('DELETE FROM chunks WHERE file_id = $1', [id]);
        return id;
      });
    },

    saveExcluded(file) {
      return db.transaction(async (tx) => {
        const removed = await tx.query('DELETE FROM files WHERE path = $1', [file.facts.path]);
        await tx.query(
          `INSERT INTO excluded_files (path, job_id, size, mtime_ms, code, reason) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (path) DO UPDATE SET job_id = EXCLUDED.job_id, size = EXCLUDED.size, mtime_ms = EXCLUDED.mtime_ms,
             code = EXCLUDED.code, reason = EXCLUDED.reason, excluded_at = now()`,
          [file.facts.path, file.jobId, file.facts.size, file.mtimeMs, file.code, file.reason],
        );
        return (removed.affectedRows ?? 0) > 0;
      });
    },

    async excluded(path) {
      const { rows } = await db.query<{ path: string; code: string; reason: string; excluded_at: unknown }>(
        'SELECT path, code, reason, excluded_at FROM excluded_files WHERE path = $1',
        [path],
      );
      const r = rows[0];
      return r ? { path: r.path, code: r.code, reason: r.reason, excluded_at: toIso(r.excluded_at) } : null;
    },

    async touch(path, facts, mtimeMs, jobId) {
      const { rows } = await db.query<{ id: number }>(
        `UPDATE files SET size = $2, created = $3, modified = $4, accessed = $5, mtime_ms = $6, job_id = $7, filename = $8, extension = $9
         WHERE path = $1 RETURNING id`,
        [path, facts.size, facts.created, facts.modified, facts.accessed, mtimeMs, jobId, facts.filename, facts.extension],
      );
      return rows[0]?.id ?? null;
    },

    async contentKeys(chars, afterId = 0) {
      // A page a call, in the order of the key: read whole (with DISTINCT), the list of 100,000 files held PGlite's
      // thread for 754 ms while searches waited (bench:search's stall run); a page of 20,000 is ≤ 50–75 ms, less in
      // all (no sort: the caller's set drops repeats), and searches go between the calls (the store's call gate
      // lets them in between calls, not between the statements of one). One text a page: PGlite decodes each value
      // of a row result in JavaScript (KNOWN_PAGE_ROWS).
      const { rows } = await db.query<{ keys: string | null; last: string | null; n: number }>(
        `SELECT string_agg(left(p.content_hash, $1), ',') AS keys, max(p.id)::text AS last, count(*)::integer AS n
         FROM (SELECT id, content_hash FROM files WHERE id > $2 AND status = 'indexed' AND content_hash IS NOT NULL
               ORDER BY id LIMIT ${pageRows}) AS p`,
        [chars, afterId],
      );
      const page = rows[0];
      return {
        keys: page?.keys ? page.keys.split(',') : [],
        next: !page || page.n < pageRows || page.last === null ? null : Number(page.last),
      };
    },

    async findByHash(contentHash, embeddingModel, exceptPath) {
      const { rows } = await db.query<{ id: number }>(FIND_BY_HASH_SQL, [contentHash, embeddingModel, exceptPath], { prepare: true });
      return rows[0]?.id ?? null;
    },

    saveCopy(sourceId, facts, mtimeMs, jobId) {
      return db.transaction(async (tx) => {
        const { rows } = await tx.query<Record<string, SqlValue>>(
          `SELECT content_hash, format, mime, title, summary, keywords, content, text_truncated, metadata::text AS metadata,
                  note, summarizer, summarizer_fallback, embedding_model, chunk_count
           FROM files WHERE id = $1`,
          [sourceId],
        );
        const source = rows[0];
        if (!source) throw new Error(`saveCopy: no file with id ${sourceId}`);
        if (typeof source.content === 'string' && source.content.length > KEYWORD_SLICED_FROM_CHARS) await sliceKeywords(tx, slicePieces, sliceMs);
        const { id, existed } = await upsertFacts(tx, { facts, mtimeMs, jobId }, { ...source, status: 'indexed', error_code: null, error: null });
        await copyChunks(tx, db.engine, id, sourceId, existed);
        return id;
      });
    },

    move(from, to, facts, mtimeMs, jobId) {
      return db.transaction(async (tx) => {
        // A new file name re-indexes the file's keywords: a long text's in slices (its caller continues them).
        await sliceKeywords(tx, slicePieces, sliceMs);
        // A file already indexed (or excluded) at the destination is replaced by the moved one.
        await tx.query('DELETE FROM files WHERE path = $1', [to]);
        await forgetExcluded(tx, to);
        const { rows } = await tx.query<{ id: number }>(
          `UPDATE files SET path = $2, filename = $3, extension = $4, size = $5, created = $6, modified = $7,
                  accessed = $8, mtime_ms = $9, job_id = $10
           WHERE path = $1 RETURNING id`,
          [from, to, facts.filename, facts.extension, facts.size, facts.created, facts.modified, facts.accessed, mtimeMs, jobId],
        );
        return rows.length > 0;
      });
    },

    async removePaths(paths) {
      if (paths.length === 0) return [];
      // Excluded paths are forgotten too; only files that were in the index are answered.
      const { rows } = await db.query<{ path: string }>(
        `WITH gone AS (DELETE FROM excluded_files WHERE path = ANY($1::text[]))
         DELETE FROM files WHERE path = ANY($1::text[]) RETURNING path`,
        [paths],
      );
      return rows.map((r) => r.path);
    },

    async removeUnder(directory) {
      const { rows } = await db.query<{ path: string }>(
        `WITH gone AS (DELETE FROM excluded_files WHERE path LIKE $1)
         DELETE FROM files WHERE path LIKE $1 RETURNING path`,
        [underPattern(directory)],
      );
      return rows.map((r) => r.path);
    },

    async listPaths(after, limit) {
      const { rows } = after === null
        ? await db.query<{ path: string }>('SELECT path FROM files ORDER BY path LIMIT $1', [limit])
        : await db.query<{ path: string }>('SELECT path FROM files WHERE path > $1 ORDER BY path LIMIT $2', [after, limit]);
      return rows.map((r) => r.path);
    },

    async get(id) {
      const { rows } = await db.query<Record<string, unknown>>(
        `SELECT ${FILE_SUMMARY_COLUMNS}, f.error, f.error_code, f.note, f.format, f.mime, f.content_hash,
                length(f.content) AS content_length, f.text_truncated, f.metadata, f.summarizer, f.summarizer_fallback,
                f.embedding_model, f.chunk_count, f.indexed_at, f.job_id, j.path AS job_path
         FROM files f LEFT JOIN watch_jobs j ON j.id = f.job_id WHERE f.id = $1`,
        [id],
      );
      const r = rows[0];
      if (!r) return null;
      const summary = toFileSummary(r);
      return {
        ...summary,
        indexed_as: summary.status !== 'indexed' ? null : (r.content_length as number) > 0 ? 'content' : 'name_only',
        error: (r.error as string | null) ?? null,
        error_code: (r.error_code as string | null) ?? null,
        note: (r.note as string | null) ?? null,
        format: r.format as string,
        mime: r.mime as string,
        content_hash: (r.content_hash as string | null) ?? null,
        content_length: r.content_length as number,
        text_truncated: r.text_truncated as boolean,
        metadata: r.metadata as FileRecord['metadata'],
        summarizer: (r.summarizer as string | null) ?? null,
        summarizer_fallback: (r.summarizer_fallback as string | null) ?? null,
        embedding_model: r.embedding_model as string,
        chunk_count: r.chunk_count as number,
        indexed_at: toIso(r.indexed_at),
        job_id: (r.job_id as number | null) ?? null,
        job_path: (r.job_path as string | null) ?? null,
      };
    },

    async content(id, offset, length) {
      const { rows } = await db.query<{ text: string; length: number; total_length: number; text_truncated: boolean }>(
        `SELECT p.text, length(p.text) AS length, p.total_length, p.text_truncated
         FROM (SELECT substr(content, $2::integer + 1, $3::integer) AS text, length(content) AS total_length, text_truncated
               FROM files WHERE id = $1) p`,
        [id, offset, length],
      );
      return rows[0] ?? null;
    },

    async stats() {
      // Counters kept by a trigger (sql/0010_file_stats.sql); the newest indexed_at from its index.
      const { rows } = await db.query<{ total: string; size: string; last: unknown; failed: string; name_only: string; excluded: number }>(
        `SELECT s.indexed::text AS total, s.name_only::text AS name_only, s.size::text AS size, s.failed::text AS failed,
                (SELECT f.indexed_at FROM files f WHERE f.status = 'indexed' ORDER BY f.indexed_at DESC LIMIT 1) AS last,
                (SELECT count(*)::int FROM excluded_files) AS excluded
         FROM file_stats s`,
      );
      const ext = await db.query<{ extension: string; n: string }>(
        `SELECT extension, n::text AS n FROM file_extension_stats WHERE n > 0 ORDER BY n DESC, extension`,
      );
      const r = rows[0]!;
      return {
        total_files: Number(r.total),
        total_size: Number(r.size),
        extensions: Object.fromEntries(ext.rows.map((e) => [e.extension, Number(e.n)])),
        last_indexed: toIso(r.last),
        failed_files: Number(r.failed),
        name_only_files: Number(r.name_only),
        excluded_files: r.excluded,
      };
    },

  };
}
