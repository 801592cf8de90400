/**
 * The parse stage: a path in, a ParsedDocument (or an expected failure as a value) out. Database-free and
 * stateless, so a pool worker can run it for any number of files. It reads each file once, hashing every byte
 * (sha256) as it goes, and keeps in memory only what the extractor needs:
 * - containers (PDF, ZIP-based, OLE, RTF) whole, as their readers need them (at most the size limit);
 * - a single-file compression (.gz, .bz2, .xz, .zst) whole, then its content as that content would be read
 *   (formats/compressed.ts: decompressed as a stream up to that budget);
 * - anything else only its opening (TEXT_PREFIX_CHARS_FACTOR bytes per character of text wanted): a 92 MB log
 *   costs the same memory as an 8 MB one, and the rest of it is hashed, never held;
 * - files over the size limit not at all: they are indexed by name, path, size and dates only.
 * The text is then checked for secrets (stages/secrets.ts): a file holding a key or a token is kept out.
 */
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { openNoFollow } from '../../lib/no-follow.js';
import { decompressedBudget, extractDocument, guessFormat, needsWholeFile } from '../formats/index.js';
import { compressionOf, decompress, innerExtension, type Compression } from '../formats/compressed.js';
import { cleanMetadata, normalizeText } from '../formats/normalize.js';
import { findSecret, secretReason } from './secrets.js';
import { factsOf, fileSystemFailure, notAFile, type Failure } from './stat.js';
import type { FileFacts, ParsedDocument, ParseOutcome } from '../types.js';

export interface ParseOptions {
  /** Files larger than this are not read for text (hashed by streaming, indexed by name only). */
  maxFileBytes: number;
  /** Extracted text is cut at this many characters (textTruncated is then true). */
  maxTextChars: number;
  /**
   * Extraction stops after this long and keeps what it has (textTruncated, with a note): a document whose
   * extraction would outlast the file timeout ends with its partial text instead of nothing. Default: no limit.
   */
  timeBudgetMs?: number;
}

const HASH_CHUNK = 1 << 20;
/** The opening read to decide what a file is (magic numbers, container signatures, text or binary). */
const SNIFF_BYTES = 64 * 1024;
/**
 * Bytes kept per character of text wanted, for files that are not containers: UTF-8 takes up to 4 bytes a
 * character, and markup and runs of whitespace shrink when extracted, so twice that.
 */
const TEXT_PREFIX_CHARS_FACTOR = 8;

export async function parseFile(filePath: string, options: ParseOptions): Promise<ParseOutcome> {
  const absolute = path.resolve(filePath);
  const opened = await openNoFollow(absolute);
  if (!opened.ok) return opened.code === 'symlink' ? { ok: false, code: 'not_a_file', reason: opened.reason } : fileSystemFailure(absolute, opened.error);
  const handle = opened.handle;
  let facts: FileFacts | undefined;
  try {
    // Facts from the open handle, so they describe exactly the file we read.
    const stats = await handle.stat();
    if (!stats.isFile()) return notAFile(absolute, stats);
    facts = factsOf(absolute, stats);
    if (stats.size > options.maxFileBytes) return await overSizeLimit(handle, facts);

    const started = Date.now();
    const head = await readAt(handle, 0, SNIFF_BYTES);
    const textKeep = Math.max(SNIFF_BYTES, options.maxTextChars * TEXT_PREFIX_CHARS_FACTOR);
    const read = await readHashing(handle, needsWholeFile(head) ? Infinity : textKeep);
    // Only the opening of a long text file was kept: end it on a whole character.
    const readCut = read.size > read.kept.length;
    const content = await unwrap(readCut ? withoutPartialCharacter(read.kept) : read.kept, facts, options.maxFileBytes, textKeep);
    if (!content.ok) return { ...content, facts };
    const cut = readCut || content.cut;
    if (content.overSizeLimit) {
      const { format, mime } = await guessFormat(content.bytes.subarray(0, SNIFF_BYTES), content.extension);
      const note = `over size limit once decompressed (${content.compression})`;
      return { ok: true, doc: { ...facts, size: read.size, format, mime, text: '', metadata: {}, contentHash: read.hash, textTruncated: false, note } };
    }
    const deadline = options.timeBudgetMs === undefined ? Infinity : started + options.timeBudgetMs;
    const extracted = await extractDocument({ bytes: content.bytes, extension: content.extension, maxTextChars: options.maxTextChars, deadline });
    if (!extracted.ok) return { ok: false, code: extracted.code, reason: extracted.reason, facts };
    if (content.compression) extracted.metadata.compression = content.compression;
    if (extracted.truncated && Date.now() > deadline) {
      extracted.note ??= `reading it took longer than ${Math.round((options.timeBudgetMs ?? 0) / 1000)} s: the text is what was read until then`;
    }

    let text = normalizeText(extracted.text);
    let textTruncated = extracted.truncated === true || (cut && text !== '');
    if (text.length > options.maxTextChars) {
      text = cutAt(text, options.maxTextChars);
      textTruncated = true;
    }
    const secret = findSecret(text);
    if (secret) return { ok: false, code: 'contains_secret', reason: secretReason(secret), facts };
    const doc: ParsedDocument = {
      ...facts,
      size: read.size,
      format: extracted.format,
      mime: extracted.mime,
      text,
      metadata: cleanMetadata(extracted.metadata),
      contentHash: read.hash,
      textTruncated,
    };
    const note = extracted.note ?? (text === '' ? 'no extractable text' : undefined);
    if (note) doc.note = note;
    return { ok: true, doc };
  } catch (err) {
    // Extractors return failures as values; what lands here is the file system failing mid-read (EIO, ...).
    return { ...(await fileSystemFailure(absolute, err)), ...(facts ? { facts } : {}) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

type Unwrapped =
  | { ok: true; bytes: Buffer; extension: string; cut: boolean; overSizeLimit: boolean; compression: Compression | null }
  | Failure;

/**
 * The content to extract: the bytes themselves, or what a single-file compression (.gz, .bz2, .xz, .zst) holds,
 * read as the file its name names without the suffix. Decompressed up to what a plain file of that content would
 * be read to (a container whole, up to the size limit; a tar up to the archive budget; anything else its text
 * opening): a bomb is cut there.
 */
async function unwrap(bytes: Buffer, facts: FileFacts, maxFileBytes: number, textKeep: number): Promise<Unwrapped> {
  const compression = compressionOf(bytes);
  if (!compression) return { ok: true, bytes, extension: facts.extension, cut: false, overSizeLimit: false, compression };
  let whole = false;
  try {
    const inner = await decompress(compression, bytes, SNIFF_BYTES, (head) => {
      const budget = decompressedBudget(head, maxFileBytes, textKeep);
      whole = budget.whole;
      return budget.bytes;
    });
    return {
      ok: true,
      bytes: inner.cut && !whole ? withoutPartialCharacter(inner.bytes) : inner.bytes,
      extension: innerExtension(facts.filename, compression),
      cut: inner.cut,
      overSizeLimit: inner.cut && whole,
      compression,
    };
  } catch (err) {
    return { ok: false, code: 'corrupt', reason: `${facts.extension.toUpperCase() || compression} is damaged: its ${compression} data could not be decompressed (${err instanceof Error ? err.message : String(err)})` };
  }
}

/** Up to `length` bytes at `position` (fewer at the end of the file). */
async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await handle.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Reads the whole file once, hashing every byte, and keeps the first `keep` bytes (Infinity: all of them). */
async function readHashing(handle: FileHandle, keep: number): Promise<{ kept: Buffer; hash: string; size: number }> {
  const hash = createHash('sha256');
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let size = 0;
  for (;;) {
    const chunk = Buffer.allocUnsafe(HASH_CHUNK);
    const { bytesRead } = await handle.read(chunk, 0, HASH_CHUNK, size);
    if (bytesRead === 0) break;
    const data = chunk.subarray(0, bytesRead);
    hash.update(data);
    size += bytesRead;
    if (keptBytes < keep) {
      const piece = keptBytes + bytesRead > keep ? data.subarray(0, keep - keptBytes) : data;
      kept.push(piece);
      keptBytes += piece.length;
    }
  }
  return { kept: Buffer.concat(kept, keptBytes), hash: hash.digest('hex'), size };
}

/**
 * Drops an incomplete UTF-8 sequence at the end of a cut opening (a lead byte without all its continuation
 * bytes), so a strict UTF-8 decode of the rest still succeeds. Legacy encodings lose at most 3 characters.
 */
export function withoutPartialCharacter(bytes: Buffer): Buffer {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if (byte < 0x80) return bytes; // ASCII: the sequence before it is complete
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return length > back ? bytes.subarray(0, bytes.length - back) : bytes;
    }
  }
  return bytes;
}

/** Hash by streaming and guess the format from the first bytes; the file is never held in memory. */
async function overSizeLimit(handle: FileHandle, facts: FileFacts): Promise<ParseOutcome> {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(HASH_CHUNK);
  let head: Buffer | undefined;
  let size = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, HASH_CHUNK, null);
    if (bytesRead === 0) break;
    head ??= Buffer.from(buffer.subarray(0, Math.min(bytesRead, SNIFF_BYTES)));
    hash.update(buffer.subarray(0, bytesRead));
    size += bytesRead;
  }
  const { format, mime } = await guessFormat(head ?? Buffer.alloc(0), facts.extension);
  return {
    ok: true,
    doc: { ...facts, size, format, mime, text: '', metadata: {}, contentHash: hash.digest('hex'), textTruncated: false, note: 'over size limit' },
  };
}

/** Cuts at a character budget without splitting a surrogate pair, preferring the last word boundary. */
function cutAt(text: string, max: number): string {
  let cut = text.slice(0, max);
  const lastSpace = cut.search(/\s\S*$/);
  if (lastSpace > max * 0.9) cut = cut.slice(0, lastSpace);
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return cut.trimEnd();
}
