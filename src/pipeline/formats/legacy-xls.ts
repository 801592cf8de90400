/**
 * Legacy Excel (.xls, BIFF8 and BIFF5) cell text from the Workbook/Book stream ([MS-XLS]): sheet names, the
 * shared string table (with strings split across CONTINUE records), labels, numbers, booleans and cached
 * formula results, one row per line. SheetJS reads XLS well, but its npm release (0.18.5) has unfixed
 * advisories for crafted files (prototype pollution, ReDoS), and an indexer reads whatever users have; this
 * reader only copies values out and never builds objects keyed by file content.
 */
import iconv from 'iconv-lite';
import { normalizeText, TextCollector } from './normalize.js';
import { summaryInformation, type OleFile } from './ole.js';
import { failure, type ExtractResult } from './types.js';

const BOF = [0x0809, 0x0409, 0x0209, 0x0009];
const EOF = 0x000a;
const FILEPASS = 0x002f;
const CODEPAGE = 0x0042;
const BOUNDSHEET = 0x0085;
const SST = 0x00fc;
const CONTINUE = 0x003c;
const LABELSST = 0x00fd;
const LABEL = 0x0204;
const RSTRING = 0x00d6;
const NUMBER = 0x0203;
const RK = 0x027e;
const MULRK = 0x00bd;
const FORMULA = 0x0006;
const STRING = 0x0207;
const BOOLERR = 0x0205;

interface Record {
  type: number;
  data: Buffer;
}

function* records(stream: Buffer): Generator<Record> {
  let pos = 0;
  while (pos + 4 <= stream.length) {
    const type = stream.readUInt16LE(pos);
    const length = stream.readUInt16LE(pos + 2);
    if (pos + 4 + length > stream.length) return; // truncated: stop at the last whole record
    yield { type, data: stream.subarray(pos + 4, pos + 4 + length) };
    pos += 4 + length;
  }
}

export function extractXls(ole: OleFile, maxTextChars: number): ExtractResult {
  const stream = ole.stream('Workbook') ?? ole.stream('Book');
  if (!stream) return failure('corrupt', 'XLS has no Workbook stream');
  const all = [...records(stream)];
  if (all.some((r) => r.type === FILEPASS)) return failure('encrypted', 'XLS is encrypted (password required)');

  let biff8 = true;
  let codepage = 'cp1252';
  const sheetNames: string[] = [];
  let strings: string[] = [];
  const out = new TextCollector(maxTextChars);
  let substream = -1; // 0 = workbook globals, then one per sheet
  let lastRow = -1;
  let pendingFormulaString = false;
  let formulaRow = 0;

  const cell = (row: number, value: string) => {
    if (value === '') return;
    out.push(row !== lastRow && lastRow !== -1 ? '\n' : lastRow === -1 ? '' : '\t');
    out.push(value);
    lastRow = row;
  };
  const text = (data: Buffer, offset: number, wideLength: boolean) =>
    biff8 ? unicodeString(data, offset, wideLength).text : legacyString(data, offset, wideLength, codepage);

  for (let i = 0; i < all.length && !out.full; i++) {
    const { type, data } = all[i] as Record;
    if (BOF.includes(type)) {
      if (substream === -1) biff8 = data.length >= 2 && data.readUInt16LE(0) === 0x0600;
      substream++;
      lastRow = -1;
      if (substream > 0) out.push(`\n\n${sheetNames[substream - 1] ?? ''}\n`);
      continue;
    }
    if (data.length < 2 && type !== EOF) continue;
    switch (type) {
      case CODEPAGE: {
        const cp = data.readUInt16LE(0);
        codepage = cp === 1200 ? 'utf-16le' : cp === 367 ? 'ascii' : `cp${cp}`;
        if (!iconv.encodingExists(codepage)) codepage = 'cp1252';
        break;
      }
      case BOUNDSHEET:
        sheetNames.push(biff8 ? unicodeString(data, 6, false).text : legacyString(data, 6, false, codepage));
        break;
      case SST: {
        const segments = [data];
        while (all[i + 1]?.type === CONTINUE) segments.push((all[++i] as Record).data);
        strings = sharedStrings(segments);
        break;
      }
      case LABELSST:
        if (data.length >= 10) cell(data.readUInt16LE(0), strings[data.readUInt32LE(6)] ?? '');
        break;
      case LABEL:
      case RSTRING:
        if (data.length >= 8) cell(data.readUInt16LE(0), text(data, 6, true));
        break;
      case NUMBER:
        if (data.length >= 14) cell(data.readUInt16LE(0), formatNumber(data.readDoubleLE(6)));
        break;
      case RK:
        if (data.length >= 10) cell(data.readUInt16LE(0), formatNumber(rkValue(data.readUInt32LE(6))));
        break;
      case MULRK:
        for (let off = 4; off + 6 <= data.length - 2; off += 6) cell(data.readUInt16LE(0), formatNumber(rkValue(data.readUInt32LE(off + 2))));
        break;
      case BOOLERR:
        if (data.length >= 8 && data[7] === 0) cell(data.readUInt16LE(0), data[6] ? 'TRUE' : 'FALSE');
        break;
      case FORMULA: {
        if (data.length < 14) break;
        const row = data.readUInt16LE(0);
        if (data.readUInt16LE(12) !== 0xffff) cell(row, formatNumber(data.readDoubleLE(6)));
        else if (data[6] === 0) {
          pendingFormulaString = true; // the value follows in a STRING record
          formulaRow = row;
        } else if (data[6] === 1) cell(row, data[8] ? 'TRUE' : 'FALSE');
        break;
      }
      case STRING:
        if (pendingFormulaString) cell(formulaRow, text(data, 0, true));
        pendingFormulaString = false;
        break;
      default:
        break;
    }
  }
  return {
    ok: true,
    format: 'xls',
    mime: 'application/vnd.ms-excel',
    text: normalizeText(out.toString()),
    metadata: { ...summaryInformation(ole), sheets: sheetNames.length },
    truncated: out.truncated,
  };
}
/** Numbers as Excel shows them by default: at most 15 significant digits (0.1+0.2 is 0.3, not 0.30000000000000004). */
function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return '';
  const plain = String(value);
  // toPrecision is slow; only long representations can carry binary rounding noise.
  return plain.length <= 15 ? plain : String(Number(value.toPrecision(15)));
}

/** RK numbers: 30 bits of either an integer or the top of a double, optionally divided by 100. */
function rkValue(rk: number): number {
  let value: number;
  if (rk & 2) value = rk >> 2;
  else {
    const buffer = Buffer.alloc(8);
    buffer.writeUInt32LE((rk & 0xfffffffc) >>> 0, 4);
    value = buffer.readDoubleLE(0);
  }
  return rk & 1 ? value / 100 : value;
}

/** BIFF8 XLUnicodeString (16-bit length) or ShortXLUnicodeString (8-bit length) within one record. */
function unicodeString(data: Buffer, offset: number, wideLength: boolean): { text: string; end: number } {
  const cch = wideLength ? data.readUInt16LE(offset) : (data[offset] ?? 0);
  let pos = offset + (wideLength ? 2 : 1);
  const flags = data[pos] ?? 0;
  pos++;
  if (flags & 0x08) pos += 2; // rich text run count (runs follow the characters)
  if (flags & 0x04) pos += 4; // extended (phonetic) data size
  const bytes = flags & 0x01 ? cch * 2 : cch;
  const chars = data.subarray(pos, pos + bytes);
  return { text: flags & 0x01 ? chars.toString('utf16le') : chars.toString('latin1'), end: pos + bytes };
}

/** BIFF5 strings: a length then bytes in the workbook's code page. */
function legacyString(data: Buffer, offset: number, wideLength: boolean, codepage: string): string {
  const cch = wideLength ? data.readUInt16LE(offset) : (data[offset] ?? 0);
  const start = offset + (wideLength ? 2 : 1);
  return iconv.decode(data.subarray(start, start + cch), codepage);
}

/**
 * The SST: XLUnicodeRichExtendedStrings packed across the SST record and its CONTINUE records. A string's
 * characters may break at a record boundary, where the next record restarts with a fresh flags byte telling
 * whether the rest is 8- or 16-bit.
 */
function sharedStrings(segments: Buffer[]): string[] {
  let seg = 0;
  let pos = 8; // cstTotal, cstUnique
  const strings: string[] = [];
  const current = () => segments[seg] as Buffer;
  const advance = () => {
    while (seg < segments.length && pos >= current().length) {
      seg++;
      pos = 0;
    }
    return seg < segments.length;
  };
  const readBytes = (n: number): Buffer => {
    const parts: Buffer[] = [];
    let left = n;
    while (left > 0 && advance()) {
      const take = Math.min(left, current().length - pos);
      parts.push(current().subarray(pos, pos + take));
      pos += take;
      left -= take;
    }
    return Buffer.concat(parts);
  };
  const total = segments[0]?.length ? segments[0].readUInt32LE(4) : 0;
  while (strings.length < total && advance()) {
    const header = readBytes(3);
    if (header.length < 3) break;
    const cch = header.readUInt16LE(0);
    let flags = header[2] ?? 0;
    const runs = flags & 0x08 ? readBytes(2).readUInt16LE(0) : 0;
    const ext = flags & 0x04 ? readBytes(4).readUInt32LE(0) : 0;
    let text = '';
    let left = cch;
    while (left > 0 && advance()) {
      const width = flags & 0x01 ? 2 : 1;
      const fit = Math.min(left, Math.floor((current().length - pos) / width));
      const chars = current().subarray(pos, pos + fit * width);
      text += width === 2 ? chars.toString('utf16le') : chars.toString('latin1');
      pos += fit * width;
      left -= fit;
      if (left > 0) {
        seg++;
        pos = 0;
        if (seg >= segments.length) break;
        flags = current()[0] ?? 0; // continuation restarts with a flags byte
        pos = 1;
      }
    }
    readBytes(runs * 4 + ext);
    strings.push(text);
  }
  return strings;
}
