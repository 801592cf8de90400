/**
 * The contract between the parse stage and the per-format extractors. An extractor gets the raw bytes (the
 * parse stage has already read them, bounded by the size limit) and returns text + metadata or an expected
 * failure as a value. Extractors never touch the file system and keep no state between calls, so one worker
 * thread can run any number of them one after another.
 */
import type { DocumentMetadata } from '../types.js';

export interface ExtractInput {
  bytes: Buffer;
  /** Lower-case extension without the dot ('' when none): a hint, the content decides when they disagree. */
  extension: string;
  /** Extractors may stop collecting text once they have this many characters (the stage cuts exactly). */
  maxTextChars: number;
  /**
   * Time (Date.now()) after which an extractor stops walking the document (pages, chapters, parts, chunks of
   * markup) and answers with what it has, marked truncated. Infinity: no limit.
   */
  deadline?: number;
  /** Set when the bytes are a member of an archive being read (formats/archive.ts): where, and what is left. */
  archive?: ArchiveContext;
}

/** An archive member's place: how deep it is nested, its path, and the budget shared by the whole archive. */
export interface ArchiveContext {
  /** 1 for a member of the file itself, 2 for a member of an archive inside it, ... */
  depth: number;
  /** Its path inside the file, nested archives joined by '/' ('inner.zip/notes.txt'). */
  path: string;
  budget: ArchiveBudget;
}

/** One member of an archive, as the ZIP or tar reader hands it over. Its name is only ever text. */
export interface ArchiveMember {
  name: string;
  /** Uncompressed size as the archive declares it (the readers never return more than asked). */
  size: number;
  directory: boolean;
  encrypted: boolean;
  /** Why its content cannot be read within the budget, when the reader knows before it is asked (7z). */
  unread?: string;
  /** Its first `maxBytes` bytes, decompressed, in memory. */
  read(maxBytes: number): Promise<Buffer>;
}

/** What reading one archive file may still spend, across every nesting level (archive.ts holds the limits). */
export interface ArchiveBudget {
  /** Decompressed bytes that may still be read from members. */
  bytesLeft: number;
  /** Members whose content may still be read. */
  membersLeft: number;
  /** Time (Date.now()) after which no further member is opened. */
  deadline: number;
}

export interface Extracted {
  ok: true;
  format: string;
  mime: string;
  text: string;
  metadata: DocumentMetadata;
  /** True when the extractor itself stopped early because of maxTextChars. */
  truncated?: boolean;
  /** Why there is no (or only partial) text, e.g. 'no extractable text'. */
  note?: string;
}

/** Failures an extractor can report; the stage adds 'unreadable' / 'not_found' / 'not_a_file' itself. */
export type ExtractFailureCode = 'encrypted' | 'corrupt';

export interface ExtractFailure {
  ok: false;
  code: ExtractFailureCode;
  reason: string;
}

export type ExtractResult = Extracted | ExtractFailure;

export type Extractor = (input: ExtractInput) => Promise<ExtractResult>;

export function failure(code: ExtractFailureCode, reason: string): ExtractFailure {
  return { ok: false, code, reason };
}

/** A library error's message, trimmed to one line, for use inside a human-readable reason. */
export function describeError(err: unknown): string {
  const message = err instanceof Error ? err.message : typeof err === 'string' ? err : String(err);
  const line = message.split('\n')[0]?.trim() ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line || 'unknown error';
}
