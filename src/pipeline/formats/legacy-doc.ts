/**
 * Legacy Word (.doc), read from the OLE container by following the piece table, as [MS-DOC] describes: the
 * FIB (start of the WordDocument stream) locates the CLX in the 0Table/1Table stream; each piece maps a run of
 * character positions to 8-bit (cp1252) or UTF-16 bytes. We wrote this instead of using word-extractor, which
 * failed on three of the six sample documents (upper-case stream names, Word 6, an optional hyphen).
 * Word 6/95 files without a piece table keep their text in one run (fcMin..fcMac).
 */
import iconv from 'iconv-lite';
import { normalizeText } from './normalize.js';
import { summaryInformation, type OleFile } from './ole.js';
import { failure, type ExtractResult } from './types.js';

const WORD97 = 0xa5ec;
const WORD6 = 0xa5dc;

export function extractDoc(ole: OleFile, maxTextChars: number): ExtractResult {
  const word = ole.stream('WordDocument');
  if (!word || word.length < 64) return failure('corrupt', 'DOC has no WordDocument stream');
  const ident = word.readUInt16LE(0);
  const flags = word.readUInt16LE(0x0a);
  if (flags & 0x0100) return failure('encrypted', 'DOC is encrypted (password required)');
  let raw: string;
  if (ident === WORD97) {
    const table = ole.stream(flags & 0x0200 ? '1Table' : '0Table');
    if (!table) return failure('corrupt', 'DOC is missing its table stream');
    raw = pieceTableText(word, table, maxTextChars * 2);
  } else if (ident === WORD6) {
    const fcMin = word.readUInt32LE(0x18);
    const fcMac = word.readUInt32LE(0x1c);
    raw = iconv.decode(word.subarray(fcMin, Math.min(fcMac, word.length, fcMin + maxTextChars * 2)), 'cp1252');
  } else {
    return failure('corrupt', `DOC has an unknown Word signature (0x${ident.toString(16)})`);
  }
  const text = normalizeText(cleanWordText(raw));
  return {
    ok: true,
    format: 'doc',
    mime: 'application/msword',
    text,
    metadata: summaryInformation(ole),
    truncated: raw.length >= maxTextChars * 2,
  };
}

/** Concatenates all pieces (main text, then footnotes, headers, comments, endnotes, text boxes). */
function pieceTableText(word: Buffer, table: Buffer, limit: number): string {
  // FibBase is 32 bytes, then csw + FibRgW97, cslw + FibRgLw97, cbRgFcLcb + FibRgFcLcb; fcClx is pair 33.
  const csw = word.readUInt16LE(32);
  const lwStart = 34 + csw * 2 + 2;
  const cslw = word.readUInt16LE(34 + csw * 2);
  const fcLcbStart = lwStart + cslw * 4 + 2;
  const fcClx = word.readUInt32LE(fcLcbStart + 33 * 8);
  const lcbClx = word.readUInt32LE(fcLcbStart + 33 * 8 + 4);
  if (lcbClx === 0 || fcClx + lcbClx > table.length) throw new Error('piece table is outside the table stream');

  let pos = fcClx;
  const end = fcClx + lcbClx;
  // Prc entries (property modifiers) come first; a negative size would walk backwards, so clamp it.
  while (pos < end && table[pos] === 0x01) pos += 3 + Math.max(0, table.readInt16LE(pos + 1));
  if (table[pos] !== 0x02) throw new Error('piece table not found');
  const lcb = table.readUInt32LE(pos + 1);
  const plc = pos + 5;
  const count = Math.floor((lcb - 4) / 12);
  const parts: string[] = [];
  let total = 0;
  for (let i = 0; i < count && total < limit; i++) {
    const cpStart = table.readUInt32LE(plc + i * 4);
    const cpEnd = table.readUInt32LE(plc + (i + 1) * 4);
    const pcd = plc + (count + 1) * 4 + i * 8;
    const fcValue = table.readUInt32LE(pcd + 2);
    const chars = Math.max(0, Math.min(cpEnd - cpStart, limit - total));
    const compressed = (fcValue & 0x40000000) !== 0;
    const fc = compressed ? (fcValue & 0x3fffffff) / 2 : fcValue;
    const bytes = word.subarray(fc, fc + chars * (compressed ? 1 : 2));
    parts.push(compressed ? iconv.decode(bytes, 'cp1252') : bytes.toString('utf16le'));
    total += chars;
  }
  return parts.join('');
}

/**
 * Word's special characters: fields are \x13 code \x14 result \x15 (keep only the result), \x07 ends a table
 * cell, \x0B is a line break, \x0C a page break, \x1E a non-breaking hyphen, \x1F an optional hyphen, and
 * \x01/\x08 anchor pictures and drawn objects.
 */
export function cleanWordText(raw: string): string {
  const out: string[] = [];
  // One entry per open field: true while we are in its code part (text to drop).
  const fields: boolean[] = [];
  let inCode = 0; // how many open fields are in their code part (kept as a count: nesting can be deep)
  for (const ch of raw) {
    const code = ch.charCodeAt(0);
    if (code === 0x13) {
      fields.push(true);
      inCode++;
      continue;
    }
    if (code === 0x14) {
      if (fields[fields.length - 1] === true) {
        fields[fields.length - 1] = false;
        inCode--;
      }
      continue;
    }
    if (code === 0x15) {
      if (fields.pop() === true) inCode--;
      continue;
    }
    if (inCode > 0) continue;
    if (code === 0x07) out.push('\t');
    else if (code === 0x0b || code === 0x0d || code === 0x0c) out.push('\n');
    else if (code === 0x1e) out.push('-');
    else if (code === 0x1f || code === 0x01 || code === 0x08 || code === 0x02 || code === 0x05) continue;
    else out.push(ch);
  }
  return out.join('');
}
