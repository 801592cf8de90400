/**
 * RTF → text with a small single-pass reader of our own. The npm RTF packages either build full document
 * trees (rtf-parser), target encapsulated HTML in e-mail (rtf-stream-parser) or ignore code pages; text search
 * needs exactly three things done right: skipping non-text destinations (font tables, pictures, field codes,
 * theme data), decoding \'hh bytes in the active font's code page (multi-byte for CJK), and \uN with its
 * \ucN fallback skipping. Linear in the input, no recursion.
 */
import iconv from 'iconv-lite';
import type { DocumentMetadata } from '../types.js';
import { normalizeText, TextCollector } from './normalize.js';
import type { ExtractInput, ExtractResult } from './types.js';

/** \fcharset → Windows code page (0 = ANSI means "the document's \ansicpg"). */
const CHARSET_CODEPAGE: Record<number, number> = {
  77: 10000, 128: 932, 129: 949, 130: 1361, 134: 936, 136: 950, 161: 1253, 162: 1254, 163: 1258,
  177: 1255, 178: 1256, 186: 1257, 204: 1251, 222: 874, 238: 1250, 254: 437,
};
/** Destinations whose content is not document text. */
const SKIP = new Set([
  'fonttbl', 'colortbl', 'stylesheet', 'listtable', 'listoverridetable', 'revtbl', 'rsidtbl', 'generator',
  'pict', 'object', 'objdata', 'fldinst', 'themedata', 'colorschememapping', 'datastore', 'latentstyles',
  'xmlnstbl', 'mmathPr', 'filetbl', 'info', 'nonshppict', 'shpinst', 'template', 'bkmkstart', 'bkmkend', 'private',
]);
/** \info fields we keep as metadata. */
const INFO_FIELDS = new Set(['title', 'author', 'subject', 'keywords']);
const SYMBOLS: Record<string, string> = {
  par: '\n', line: '\n', sect: '\n\n', page: '\n\n', row: '\n', tab: '\t', cell: '\t', nestcell: '\t',
  emdash: '\u2014', endash: '\u2013', bullet: '\u2022', lquote: '\u2018', rquote: '\u2019',
  ldblquote: '\u201C', rdblquote: '\u201D', emspace: ' ', enspace: ' ', qmspace: ' ',
};

interface GroupState {
  /** 'text', 'skip', 'fonttbl', or an \info field name. */
  dest: string;
  codepage: number;
  uc: number;
}

function codepageName(cp: number): string {
  const name = cp === 10000 ? 'macintosh' : `cp${cp}`;
  return iconv.encodingExists(name) ? name : 'cp1252';
}

export function isRtf(bytes: Uint8Array): boolean {
  return bytes[0] === 0x7b && bytes[1] === 0x5c && bytes[2] === 0x72 && bytes[3] === 0x74 && bytes[4] === 0x66; // {\rtf
}

export async function extractRtf(input: ExtractInput): Promise<ExtractResult> {
  const { text, metadata, truncated } = rtfToText(input.bytes, input.maxTextChars);
  return { ok: true, format: 'rtf', mime: 'application/rtf', text, metadata, truncated };
}

export function rtfToText(bytes: Buffer, maxTextChars: number): { text: string; metadata: DocumentMetadata; truncated: boolean } {
  const out = new TextCollector(maxTextChars);
  const info = new Map<string, string>();
  const fonts = new Map<number, number>();
  let ansiCodepage = 1252;
  let state: GroupState = { dest: 'text', codepage: 1252, uc: 1 };
  const stack: GroupState[] = [];
  let pending: number[] = [];
  let pendingCodepage = 1252;
  let definingFont = -1;
  let skipFallback = 0; // characters still to skip after a \uN
  let groupStart = false; // the previous token opened a group (destination words come first)

  const emit = (text: string) => {
    if (state.dest === 'text') out.push(text);
    else if (INFO_FIELDS.has(state.dest)) info.set(state.dest, (info.get(state.dest) ?? '') + text);
  };
  const flush = () => {
    if (pending.length === 0) return;
    const decoded = iconv.decode(Buffer.from(pending), codepageName(pendingCodepage));
    pending = [];
    emit(decoded);
  };
  const byte = (b: number) => {
    if (skipFallback > 0) {
      skipFallback--;
      return;
    }
    if (state.dest !== 'text' && !INFO_FIELDS.has(state.dest)) return;
    if (pending.length > 0 && pendingCodepage !== state.codepage) flush();
    pendingCodepage = state.codepage;
    pending.push(b);
  };

  let i = 0;
  const n = bytes.length;
  while (i < n && !out.full) {
    const c = bytes[i] as number;
    if (c === 0x7b) {
      flush();
      stack.push(state);
      state = { ...state };
      skipFallback = 0;
      groupStart = true;
      i++;
      continue;
    }
    if (c === 0x7d) {
      flush();
      state = stack.pop() ?? state;
      skipFallback = 0;
      i++;
      continue;
    }
    const atGroupStart = groupStart;
    groupStart = false;
    if (c === 0x0d || c === 0x0a) {
      i++;
      continue;
    }
    if (c !== 0x5c) {
      byte(c);
      i++;
      continue;
    }
    // A backslash: control symbol or control word.
    const next = bytes[i + 1];
    if (next === undefined) break;
    if (next === 0x27) {
      // \'hh
      const hex = bytes.subarray(i + 2, i + 4).toString('latin1');
      if (/^[0-9a-fA-F]{2}$/.test(hex)) byte(parseInt(hex, 16));
      i += 4;
      continue;
    }
    if (!isLetter(next)) {
      i += 2;
      if (next === 0x2a) {
        flush(); // \* : an optional destination we do not know (or do not want) — skip the group
        state.dest = 'skip';
      } else if (next === 0x7b || next === 0x7d || next === 0x5c) byte(next);
      else if (next === 0x7e) emit('\u00A0');
      else if (next === 0x5f) emit('-');
      else if (next === 0x0a || next === 0x0d) emit('\n');
      continue;
    }
    let j = i + 1;
    while (j < n && j - i <= 32 && isLetter(bytes[j] as number)) j++;
    const word = bytes.subarray(i + 1, j).toString('latin1');
    let param: number | undefined;
    const numStart = j;
    if (bytes[j] === 0x2d) j++;
    while (j < n && j - numStart < 11 && (bytes[j] as number) >= 0x30 && (bytes[j] as number) <= 0x39) j++;
    if (j > numStart && !(j === numStart + 1 && bytes[numStart] === 0x2d)) param = Number(bytes.subarray(numStart, j).toString('latin1'));
    else j = numStart;
    if (bytes[j] === 0x20) j++; // the delimiting space belongs to the control word
    i = j;

    if (word === 'bin') {
      i += Math.max(0, param ?? 0); // binary data: skip it unread
      continue;
    }
    if (word === 'u' && param !== undefined) {
      flush();
      if (skipFallback === 0) emit(String.fromCharCode(param < 0 ? param + 65536 : param));
      skipFallback = state.uc;
      continue;
    }
    if (skipFallback > 0 && state.dest === 'text') {
      // A control word inside the \uN fallback counts as one skipped character.
      skipFallback--;
      continue;
    }
    flush();
    if (SKIP.has(word) && (atGroupStart || state.dest !== 'text' || word === 'fldinst')) {
      state.dest = word === 'fonttbl' ? 'fonttbl' : word === 'info' ? 'info' : 'skip';
      continue;
    }
    if (state.dest === 'info' && INFO_FIELDS.has(word)) {
      state.dest = word;
      continue;
    }
    switch (word) {
      case 'ansicpg':
        if (param) ansiCodepage = param;
        state.codepage = ansiCodepage;
        break;
      case 'uc':
        state.uc = Math.max(0, Math.min(param ?? 1, 8));
        break;
      case 'f':
        if (state.dest === 'fonttbl') definingFont = param ?? 0;
        else state.codepage = fonts.get(param ?? 0) ?? ansiCodepage;
        break;
      case 'fcharset':
        if (state.dest === 'fonttbl' && definingFont >= 0) fonts.set(definingFont, CHARSET_CODEPAGE[param ?? 0] ?? ansiCodepage);
        break;
      default: {
        const symbol = SYMBOLS[word];
        if (symbol !== undefined) emit(symbol);
      }
    }
  }
  flush();

  const metadata: DocumentMetadata = {};
  for (const [key, value] of info) {
    const clean = value.replace(/\s+/g, ' ').trim();
    if (!clean) continue;
    if (key === 'keywords') metadata.keywords = clean.split(/[,;]/).map((k) => k.trim()).filter(Boolean);
    else metadata[key] = clean;
  }
  return { text: normalizeText(out.toString()), metadata, truncated: out.truncated || i < n };
}

function isLetter(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a);
}
