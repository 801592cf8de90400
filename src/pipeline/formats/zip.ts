/**
 * Reading ZIP containers (OOXML, OpenDocument, EPUB, plain archives) with yauzl: it reads the central
 * directory, checks every entry's declared sizes against what it inflates (no zip-bomb surprises), and reports
 * damage as errors instead of guessing. Entry names are decoded here (UTF-8 flag, Info-ZIP Unicode path field,
 * else detected legacy encodings such as GBK or CP437), so unsafe names never reach a file system: we only
 * read entries into memory, never extract them.
 */
import yauzl from 'yauzl';
import { decodeAs, detectEncodings, strictUtf8Decode } from './encoding.js';
import type { ArchiveMember } from './types.js';

export interface ZipEntryInfo {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
  encrypted: boolean;
  directory: boolean;
}

export interface ZipArchive {
  entries: ZipEntryInfo[];
  has(name: string): boolean;
  /**
   * Reads one entry, at most its first `maxBytes` (default MAX_ENTRY_BYTES): a part larger than that is
   * cut, which the forgiving XML reader handles, so a giant part costs bounded memory. Rejects if the
   * entry is encrypted or damaged.
   */
  read(name: string, maxBytes?: number): Promise<Buffer>;
  /** Every entry as an archive member (formats/archive.ts), in directory order, each read by its own record. */
  members(): ArchiveMember[];
  close(): void;
}

/** Most bytes of a single entry we inflate into memory (more text than any index needs from one part). */
export const MAX_ENTRY_BYTES = 64 * 1024 * 1024;
/** Entries listed at most (a listing is for filename search; a million-entry archive needs no more). */
const MAX_ENTRIES = 100_000;

export class ZipError extends Error {
  override name = 'ZipError';
}

export function isZip(bytes: Uint8Array): boolean {
  // Local file header, or end of central directory right at the start (an empty archive).
  return bytes[0] === 0x50 && bytes[1] === 0x4b && ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6));
}

export async function openZip(bytes: Buffer): Promise<ZipArchive> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true }, (err, file) => {
      if (err || !file) reject(err ?? new ZipError('could not open archive'));
      else resolve(file);
    });
  });
  const raw = await listEntries(zip);
  const names = decodeNames(raw);
  const byName = new Map<string, yauzl.Entry>();
  const entries = raw.map((entry, i) => {
    const name = names[i] ?? '';
    if (!byName.has(name)) byName.set(name, entry);
    return {
      name,
      compressedSize: entry.compressedSize,
      uncompressedSize: entry.uncompressedSize,
      encrypted: entry.isEncrypted(),
      directory: name.endsWith('/'),
    };
  });
  return {
    entries,
    has: (name) => byName.has(name),
    read: (name, maxBytes = MAX_ENTRY_BYTES) => {
      const entry = byName.get(name);
      if (!entry) return Promise.reject(new ZipError(`entry ${name} not found`));
      return readEntry(zip, entry, name, maxBytes);
    },
    members: () =>
      entries.map((info, i) => ({
        ...info,
        size: info.uncompressedSize,
        read: (maxBytes: number) => readEntry(zip, raw[i]!, info.name, maxBytes),
      })),
    close: () => zip.close(),
  };
}

function listEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on('entry', (entry: yauzl.Entry) => {
      entries.push(entry);
      if (entries.length >= MAX_ENTRIES) resolve(entries);
      else zip.readEntry();
    });
    zip.once('end', () => resolve(entries));
    zip.once('error', reject);
    zip.readEntry();
  });
}

function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry, name: string, maxBytes: number): Promise<Buffer> {
  if (entry.isEncrypted()) return Promise.reject(new ZipError(`entry ${name} is encrypted`));
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err || !stream) {
        reject(err ?? new ZipError(`cannot read entry ${name}`));
        return;
      }
      const chunks: Buffer[] = [];
      let total = 0;
      stream.on('data', (chunk: Buffer) => {
        if (total >= maxBytes) return;
        const room = maxBytes - total;
        chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
        total += Math.min(chunk.length, room);
        if (total >= maxBytes) {
          stream.destroy(); // enough: stop inflating
          resolve(Buffer.concat(chunks));
        }
      });
      stream.once('error', reject);
      stream.once('end', () => resolve(Buffer.concat(chunks)));
    });
  });
}

/** Name bytes as yauzl hands them over with decodeStrings: false (typed as string by @types/yauzl). */
function rawName(entry: yauzl.Entry): Buffer {
  const value: unknown = entry.fileName;
  return Buffer.isBuffer(value) ? value : Buffer.from(String(value), 'utf8');
}

/**
 * Names flagged UTF-8 (or carrying the Info-ZIP Unicode path field) are UTF-8. The others are in the
 * creating system's code page: if they are all valid UTF-8 anyway take that, else detect one encoding for
 * all of them together (one archive, one creator), falling back to CP437 as the ZIP spec says.
 */
function decodeNames(entries: yauzl.Entry[]): string[] {
  const legacy: Buffer[] = [];
  const names = entries.map((entry) => {
    const bytes = rawName(entry);
    const unicodePath = entry.extraFields.find((f) => f.id === 0x7075 && f.data.length > 5 && f.data[0] === 1);
    if (unicodePath) return unicodePath.data.subarray(5).toString('utf8');
    if ((entry.generalPurposeBitFlag & 0x800) !== 0) return bytes.toString('utf8');
    const utf8 = strictUtf8Decode(bytes);
    if (utf8 !== undefined) return utf8;
    legacy.push(bytes);
    return undefined;
  });
  if (legacy.length === 0) return names.map((n) => n ?? '');
  const sample = Buffer.concat(legacy.flatMap((b) => [b, Buffer.from('\n')])).subarray(0, 64 * 1024);
  const guess = detectEncodings(sample).find((g) => g.encoding && decodeAs(Buffer.from('a'), g.encoding) !== undefined);
  const encoding = guess?.encoding ?? 'cp437';
  return entries.map((entry, i) => names[i] ?? decodeAs(rawName(entry), encoding) ?? rawName(entry).toString('latin1'));
}
