import type { Analysis, DocumentMetadata, FileFacts } from '../../pipeline/types.js';

/** A file's state as the indexer needs it to decide whether work is needed. */
export interface KnownFile {
  id: number;
  path: string;
  size: number;
  mtimeMs: number;
  contentHash: string | null;
  /** 'excluded': kept out by the content check (no files row; id 0). */
  status: 'indexed' | 'failed' | 'excluded';
  embeddingModel: string;
  jobId: number | null;
}

export interface ChunkRow {
  index: number;
  start: number;
  end: number;
  text: string;
  embedding: Float32Array;
}

/** A fully processed file, ready to be written in one transaction. */
export interface IndexedFileWrite {
  facts: FileFacts;
  mtimeMs: number;
  jobId: number | null;
  contentHash: string;
  format: string;
  mime: string;
  text: string;
  textTruncated: boolean;
  metadata: DocumentMetadata;
  note: string | null;
  analysis: Analysis;
  /** Identity of the embedding model the file was processed with ('' when none was available). */
  embeddingModel: string;
  chunks: ChunkRow[];
}

export interface FailedFileWrite {
  facts: FileFacts;
  mtimeMs: number;
  jobId: number | null;
  code: string;
  reason: string;
}

/** A file the content check keeps out of the index. */
export interface ExcludedFileWrite {
  facts: FileFacts;
  mtimeMs: number;
  jobId: number | null;
  /** e.g. 'contains_secret'. */
  code: string;
  reason: string;
}

export interface ExcludedFile {
  path: string;
  code: string;
  reason: string;
  excluded_at: string | null;
}

/** A file as a search result and the file record show it: its identity, dates and description. */
export interface FileSummary {
  id: number;
  file_path: string;
  filename: string;
  extension: string;
  created: string | null;
  modified: string | null;
  accessed: string | null;
  title: string;
  summary: string;
  keywords: string[];
  size: number;
  status: 'indexed' | 'failed';
}

/** GET /api/files/{id}: the full record of one file (no extracted text: it can be megabytes). */
export interface FileRecord extends FileSummary {
  /** How an indexed file is searchable: by its text, or by name only (no text could be read; `note` says why). */
  indexed_as: 'content' | 'name_only' | null;
  error: string | null;
  error_code: string | null;
  note: string | null;
  format: string;
  mime: string;
  content_hash: string | null;
  content_length: number;
  text_truncated: boolean;
  metadata: DocumentMetadata;
  summarizer: string | null;
  summarizer_fallback: string | null;
  embedding_model: string;
  chunk_count: number;
  indexed_at: string | null;
  job_id: number | null;
  job_path: string | null;
}

/** Where the next page of knownUnderPage starts: the files table by id, then the excluded files by path. */
export type KnownCursor = { fileId: number } | { excludedPath: string };

export interface KnownUnderPage {
  known: KnownFile[];
  /** null after the last page. */
  next: KnownCursor | null;
}

/** A page of the indexed contents' keys (the start of each content hash; repeats possible). */
export interface ContentKeysPage {
  keys: string[];
  /** The file id to read the next page after; null after the last page. */
  next: number | null;
}

/** A page of a file's extracted text. Offsets and lengths count characters (Unicode code points). */
export interface FileContentPage {
  text: string;
  /** Characters in `text`. */
  length: number;
  /** Characters of the whole extracted text. */
  total_length: number;
  /** The text was cut at indexing.max_text_chars. */
  text_truncated: boolean;
}

export interface FileStats {
  total_files: number;
  total_size: number;
  extensions: Record<string, number>;
  last_indexed: string | null;
  failed_files: number;
  /** Of total_files, those indexed by name only (no text could be read). */
  name_only_files: number;
  /** Files the content check keeps out of the index (a private key, a token). */
  excluded_files: number;
}
