/**
 * OLE2 compound files (legacy DOC/XLS/PPT, Outlook MSG, and the wrapper Office puts around password-protected
 * DOCX/XLSX/PPTX) read with SheetJS's cfb. This module finds top-level streams by name (case-insensitively:
 * some writers upper-case them) and reads the \x05SummaryInformation property set for title, author, etc.
 */
import CFB from 'cfb';
import iconv from 'iconv-lite';
import type { DocumentMetadata } from '../types.js';

export interface OleFile {
  /** A top-level stream's bytes, or undefined. */
  stream(name: string): Buffer | undefined;
  /** Top-level stream and storage names. */
  names: string[];
}

export function isOle(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && Buffer.from(bytes.buffer, bytes.byteOffset, 8).equals(OLE_MAGIC);
}
const OLE_MAGIC = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

export function openOle(bytes: Buffer): OleFile {
  const container = CFB.read(bytes, { type: 'buffer' });
  const top = new Map<string, Buffer>();
  const names: string[] = [];
  container.FullPaths.forEach((fullPath, i) => {
    const parts = fullPath.split('/').filter(Boolean);
    if (parts.length !== 2) return; // 'Root Entry/<name>' only
    const entry = container.FileIndex[i];
    const name = parts[1] ?? '';
    names.push(name);
    if (entry && entry.type === 2) {
      const content: unknown = entry.content;
      // cfb leaves `content` unset for empty streams.
      const buffer = Buffer.isBuffer(content) ? content : content ? Buffer.from(content as ArrayLike<number>) : Buffer.alloc(0);
      top.set(name.toLowerCase(), buffer);
    }
  });
  return { stream: (name) => top.get(name.toLowerCase()), names };
}

const SUMMARY_PROPERTIES: Record<number, 'title' | 'subject' | 'author' | 'keywords' | 'created'> = {
  2: 'title',
  3: 'subject',
  4: 'author',
  5: 'keywords',
  12: 'created',
};

/** Title, subject, author, keywords and creation time from the \x05SummaryInformation stream, if present. */
export function summaryInformation(ole: OleFile): DocumentMetadata {
  const stream = ole.stream('\u0005SummaryInformation');
  const metadata: DocumentMetadata = {};
  if (!stream || stream.length < 48) return metadata;
  try {
    const section = stream.readUInt32LE(44);
    const count = stream.readUInt32LE(section + 4);
    let codepage = 1252;
    const values: Array<[string, number]> = [];
    for (let i = 0; i < Math.min(count, 256); i++) {
      const id = stream.readUInt32LE(section + 8 + i * 8);
      const offset = section + stream.readUInt32LE(section + 12 + i * 8);
      if (id === 1 && stream.readUInt16LE(offset) === 2) codepage = stream.readInt16LE(offset + 4) & 0xffff;
      const key = SUMMARY_PROPERTIES[id];
      if (key) values.push([key, offset]);
    }
    for (const [key, offset] of values) {
      const value = propertyValue(stream, offset, codepage);
      if (value === undefined || value === '') continue;
      metadata[key] = key === 'keywords' ? value.split(/[,;]/).map((k) => k.trim()).filter(Boolean) : value;
    }
  } catch {
    // A damaged property set costs us the metadata only; the document text is read separately.
  }
  return metadata;
}

function propertyValue(stream: Buffer, offset: number, codepage: number): string | undefined {
  const type = stream.readUInt16LE(offset);
  if (type === 30) {
    // VT_LPSTR: byte count (with the NUL), bytes in the property set's code page (1200 means UTF-16LE)
    const length = stream.readUInt32LE(offset + 4);
    const bytes = stream.subarray(offset + 8, offset + 8 + Math.min(length, 4096));
    const name = codepage === 1200 ? 'utf-16le' : codepage === 65001 ? 'utf-8' : `cp${codepage}`;
    const text = iconv.encodingExists(name) ? iconv.decode(bytes, name) : bytes.toString('latin1');
    return text.replace(/\0[\s\S]*$/, '').trim();
  }
  if (type === 31) {
    const chars = stream.readUInt32LE(offset + 4);
    return stream.subarray(offset + 8, offset + 8 + Math.min(chars, 2048) * 2).toString('utf16le').replace(/\0[\s\S]*$/, '').trim();
  }
  if (type === 64) {
    // VT_FILETIME: 100 ns ticks since 1601-01-01
    const ticks = stream.readBigUInt64LE(offset + 4);
    if (ticks === 0n) return undefined;
    const ms = Number(ticks / 10000n) - 11644473600000;
    const date = new Date(ms);
    return ms > 0 && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined;
  }
  return undefined;
}
