/**
 * Contracts between the pipeline stages. Each stage is a pure, database-free function; these types are what
 * crosses from one stage to the next (and, being plain data, across worker threads via structured clone).
 */

/** What the file system tells us about a file, before reading it. Timestamps are ISO 8601 with zone (UTC). */
export interface FileFacts {
  path: string; // absolute
  filename: string; // base name, with extension
  extension: string; // lower case, without the dot; '' when none
  size: number; // bytes
  created: string;
  modified: string;
  accessed: string;
}

/** Metadata a format may carry inside the document itself. Every field is optional. */
export interface DocumentMetadata {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string[];
  language?: string;
  pages?: number;
  created?: string;
  [key: string]: string | number | string[] | undefined;
}

/** Output of the parse stage for a file that could be read (possibly with no text at all). */
export interface ParsedDocument extends FileFacts {
  /** Short format name that produced the text: 'text', 'markdown', 'html', 'pdf', 'docx', 'binary', ... */
  format: string;
  mime: string;
  /** Extracted plain text, '' when the format has none (images, archives, unknown binaries, over the size limit). */
  text: string;
  metadata: DocumentMetadata;
  /** sha256 (hex) of the raw bytes. */
  contentHash: string;
  /** True when text was cut at the configured maximum. */
  textTruncated: boolean;
  /** Why there is no text, when there is none (e.g. 'over size limit', 'no extractable text'). */
  note?: string;
}

/**
 * Expected parse failures are values, not throws (they cross thread boundaries). 'contains_secret' is not a
 * failure of the file but the content check's verdict (stages/secrets.ts): the file is kept out of the index.
 */
export type ParseFailureCode = 'encrypted' | 'corrupt' | 'unreadable' | 'not_found' | 'not_a_file' | 'contains_secret';

export type ParseOutcome =
  | { ok: true; doc: ParsedDocument }
  | { ok: false; code: ParseFailureCode; reason: string; facts?: FileFacts };

/** Output of the analyze stage. */
export interface Analysis {
  title: string;
  summary: string;
  keywords: string[];
  /** Which summarizer produced it: 'local', 'ollama', 'openai'. */
  provider: string;
  /** Set when a configured remote provider failed and the local one was used instead. */
  fallbackReason?: string;
}

/** A piece of a document's text that gets one embedding. */
export interface Chunk {
  index: number;
  text: string;
  /** Character offsets of the chunk in the document text (for snippets). */
  start: number;
  end: number;
}

export interface EmbeddedChunk extends Chunk {
  embedding: Float32Array;
}
