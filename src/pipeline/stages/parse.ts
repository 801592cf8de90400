/**
 * The parse stage: a path in, a ParsedDocument (or an expected failure as a value) out. Database-free and
 * stateless, so a pool worker can run it for any number of files. It reads each file once: the bytes both
 * feed the extractor and the sha256 content hash. Files over the size limit are never loaded: their hash is
 * computed by streaming and they are indexed by name, path, size and dates only.
 */
import { createHash } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { extractDocument, guessFormat } from '../formats/index.js';
import { normalizeText } from '../formats/normalize.js';
import type { FileFacts, ParsedDocument, ParseFailureCode, ParseOutcome } from '../types.js';

export interface ParseOptions {
  /** Files larger than this are not read for text (hashed by streaming, indexed by name only). */
  maxFileBytes: number;
  /** Extracted text is cut at this many characters (textTruncated is then true). */
  maxTextChars: number;
}

export type StatOutcome = { ok: true; facts: FileFacts } | { ok: false; code: ParseFailureCode; reason: string };

type Failure = { ok: false; code: ParseFailureCode; reason: string };

const HASH_CHUNK = 1 << 20;
const SNIFF_BYTES = 4100;

/** File system facts without reading the file (what the scanner compares: size and mtime). */
export async function statFile(filePath: string): Promise<StatOutcome> {
  const absolute = path.resolve(filePath);
  try {
    const stats = await fs.stat(absolute);
    if (!stats.isFile()) return notAFile(absolute, stats);
    return { ok: true, facts: factsOf(absolute, stats) };
  } catch (err) {
    return fileSystemFailure(absolute, err);
  }
}

export async function parseFile(filePath: string, options: ParseOptions): Promise<ParseOutcome> {
  const absolute = path.resolve(filePath);
  let handle: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it has no effect on regular files.
    handle = await fs.open(absolute, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    return fileSystemFailure(absolute, err);
  }
  let facts: FileFacts | undefined;
  try {
    // Facts from the open handle, so they describe exactly the file we read.
    const stats = await handle.stat();
    if (!stats.isFile()) return notAFile(absolute, stats);
    facts = factsOf(absolute, stats);
    if (stats.size > options.maxFileBytes) return await overSizeLimit(handle, facts);

    const bytes = await handle.readFile();
    const contentHash = createHash('sha256').update(bytes).digest('hex');
    const extracted = await extractDocument({ bytes, extension: facts.extension, maxTextChars: options.maxTextChars });
    if (!extracted.ok) return { ok: false, code: extracted.code, reason: extracted.reason, facts };

    let text = normalizeText(extracted.text);
    let textTruncated = extracted.truncated === true;
    if (text.length > options.maxTextChars) {
      text = cutAt(text, options.maxTextChars);
      textTruncated = true;
    }
    const doc: ParsedDocument = {
      ...facts,
      size: bytes.length,
      format: extracted.format,
      mime: extracted.mime,
      text,
      metadata: extracted.metadata,
      contentHash,
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

function factsOf(absolute: string, stats: { size: number; birthtimeMs: number; birthtime: Date; ctime: Date; mtime: Date; atime: Date }): FileFacts {
  const filename = path.basename(absolute);
  const ext = path.extname(filename);
  return {
    path: absolute,
    filename,
    extension: ext.length > 1 ? ext.slice(1).toLowerCase() : '',
    size: stats.size,
    // Some file systems do not record a birth time (0): the inode change time is the closest we have.
    created: (stats.birthtimeMs > 0 ? stats.birthtime : stats.ctime).toISOString(),
    modified: stats.mtime.toISOString(),
    accessed: stats.atime.toISOString(),
  };
}

function notAFile(absolute: string, stats: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): Failure {
  const kind = stats.isDirectory()
    ? 'a directory'
    : stats.isFIFO()
      ? 'a named pipe'
      : stats.isSocket()
        ? 'a socket'
        : stats.isCharacterDevice() || stats.isBlockDevice()
          ? 'a device'
          : 'not a regular file';
  return { ok: false, code: 'not_a_file', reason: `${absolute} is ${kind}, not a regular file` };
}

async function fileSystemFailure(absolute: string, err: unknown): Promise<Failure> {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT': {
      // A dangling symlink exists as a directory entry, but its content cannot be read.
      const link = await fs.readlink(absolute).catch(() => undefined);
      if (link !== undefined) return { ok: false, code: 'unreadable', reason: `${absolute} is a broken symbolic link (target ${link} does not exist)` };
      return { ok: false, code: 'not_found', reason: `${absolute} does not exist` };
    }
    case 'ENOTDIR':
      return { ok: false, code: 'not_found', reason: `${absolute} does not exist (a parent is not a directory)` };
    case 'EACCES':
    case 'EPERM':
      return { ok: false, code: 'unreadable', reason: `permission denied reading ${absolute}` };
    case 'ELOOP':
      return { ok: false, code: 'unreadable', reason: `${absolute} is a symbolic link loop` };
    case 'EISDIR':
      return { ok: false, code: 'not_a_file', reason: `${absolute} is a directory, not a regular file` };
    default:
      return { ok: false, code: 'unreadable', reason: `${absolute} could not be read: ${(err as Error | undefined)?.message ?? String(err)}` };
  }
}
