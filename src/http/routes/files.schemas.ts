/** The /api/files endpoints: a file's record, a page of its extracted text, and the index's statistics. */
import Type, { type Static } from '#typebox';
import { DEFAULT_CONTENT_PAGE, MAX_CONTENT_PAGE } from '../../search/content.js';
import { IdParam, Instant, Nullable, TextRanges, type Operation } from './common.schemas.js';

/** A file as a search result and the file record show it: its identity, dates and description. */
export const FileSummarySchema = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    file_path: Type.String({ description: 'Absolute path' }),
    filename: Type.String(),
    extension: Type.String({ description: "Lower case, without the dot ('' when none)" }),
    created: Nullable(Instant()),
    modified: Nullable(Instant()),
    accessed: Nullable(Instant()),
    title: Type.String(),
    summary: Type.String(),
    keywords: Type.Array(Type.String()),
    size: Type.Integer({ minimum: 0, description: 'Bytes' }),
    status: Type.Union([Type.Literal('indexed'), Type.Literal('failed')]),
  },
  { additionalProperties: false, title: 'FileSummary' },
);
export type FileSummaryBody = Static<typeof FileSummarySchema>;

export const FileRecordSchema = Type.Object(
  {
    ...FileSummarySchema.properties,
    indexed_as: Nullable(
      Type.Union([Type.Literal('content'), Type.Literal('name_only')], {
        description: "How an indexed file is searchable: by its text, or by name, path and dates only when no text could be read (`note` says why: 'no extractable text', 'over size limit', ...); null for a failed file",
      }),
    ),
    error: Nullable(Type.String({ description: 'Why the file failed' })),
    error_code: Nullable(Type.String({ description: "e.g. 'corrupt', 'encrypted', 'timeout', 'unreadable'" })),
    note: Nullable(Type.String({ description: "Why there is no text, e.g. 'over size limit'" })),
    format: Type.String(),
    mime: Type.String(),
    content_hash: Nullable(Type.String({ description: 'sha256 of the bytes' })),
    content_length: Type.Integer({ minimum: 0, description: 'Characters of extracted text (see /content)' }),
    text_truncated: Type.Boolean(),
    metadata: Type.Record(Type.String(), Type.Unknown(), { description: 'Document metadata (author, pages, language, ...)' }),
    summarizer: Nullable(Type.String()),
    summarizer_fallback: Nullable(Type.String()),
    embedding_model: Type.String(),
    chunk_count: Type.Integer({ minimum: 0 }),
    indexed_at: Nullable(Instant()),
    job_id: Nullable(Type.Integer()),
    job_path: Nullable(Type.String()),
  },
  { additionalProperties: false, title: 'FileRecord' },
);
export type FileRecordBody = Static<typeof FileRecordSchema>;

export const FileStatsSchema = Type.Object(
  {
    total_files: Type.Integer({ minimum: 0, description: 'Indexed files' }),
    total_size: Type.Integer({ minimum: 0, description: 'Bytes of the indexed files' }),
    extensions: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), { description: 'Indexed files per extension' }),
    last_indexed: Nullable(Instant()),
    failed_files: Type.Integer({ minimum: 0 }),
    name_only_files: Type.Integer({ minimum: 0, description: 'Of total_files, those searchable by name only: no text could be read' }),
    excluded_files: Type.Integer({ minimum: 0, description: 'Files the content check keeps out of the index (a private key, a token)' }),
  },
  { additionalProperties: false, title: 'FileStats' },
);

export const FileContentQuery = Type.Object(
  {
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, description: 'First character of the page (0-based, Unicode code points); default 0' })),
    length: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_CONTENT_PAGE, description: `Characters at most; default ${DEFAULT_CONTENT_PAGE}` })),
    q: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'A search query whose words are highlighted, as search highlights them' })),
  },
  { additionalProperties: false },
);
export type FileContentQuery = Static<typeof FileContentQuery>;

export const FileContentSchema = Type.Object(
  {
    file_id: Type.Integer({ minimum: 1 }),
    offset: Type.Integer({ minimum: 0 }),
    length: Type.Integer({ minimum: 0, description: 'Characters (code points) in text' }),
    total_length: Type.Integer({ minimum: 0, description: 'Characters of the whole extracted text' }),
    next_offset: Nullable(Type.Integer({ minimum: 0, description: 'Where the next page starts; null at the end' })),
    text_truncated: Type.Boolean({ description: 'The text was cut at indexing.max_text_chars when indexed' }),
    text: Type.String(),
    highlights: TextRanges('[start, end) ranges of text (JavaScript string indexes) matching q'),
  },
  { additionalProperties: false, title: 'FileContent' },
);
export type FileContentBody = Static<typeof FileContentSchema>;

const FileIdParam = IdParam('file_id', 'The file id');

export const filesOperations: Operation[] = [
  {
    method: 'get',
    path: '/api/files/stats',
    tag: 'files',
    summary: 'Statistics of the index',
    answers: { 200: { description: 'Counts and sizes', schema: FileStatsSchema } },
  },
  {
    method: 'get',
    path: '/api/files/:file_id',
    tag: 'files',
    summary: "A file's full record",
    description: 'Everything known of one file except its text (which can be megabytes: see /content). 404 `not_found` for an unknown id.',
    params: FileIdParam,
    answers: { 200: { description: 'The record', schema: FileRecordSchema } },
  },
  {
    method: 'get',
    path: '/api/files/:file_id/content',
    tag: 'files',
    summary: "A page of a file's extracted text",
    description:
      'The text the file was indexed with, a page at a time (follow `next_offset`), with the words of `q` highlighted. ' +
      'A failed file, or one without text (an image), has an empty text. 404 `not_found` for an unknown id.',
    params: FileIdParam,
    query: FileContentQuery,
    answers: { 200: { description: 'The page', schema: FileContentSchema } },
  },
];
