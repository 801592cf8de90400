/**
 * Turning bytes of unknown encoding into text. Order of evidence: a byte-order mark, then an encoding the
 * document declares (HTML meta, XML declaration, MIME charset, RTF code page), then strict UTF-8, then the
 * NUL pattern of BOM-less UTF-16, and only then statistical detection (jschardet, a port of chardet 7, which
 * also recognises DOS and EBCDIC code pages). Decoding is iconv-lite, Node's ICU TextDecoder for what
 * iconv-lite lacks, and our own tables for EBCDIC.
 */
import { isUtf8 } from 'node:buffer';
import { createRequire } from 'node:module';
import iconv from 'iconv-lite';
import type * as Jschardet from 'jschardet';
import { decodeEbcdic, ebcdicTable } from './ebcdic.js';

export interface Decoded {
  text: string;
  /** Canonical-ish name of the encoding used, e.g. 'utf-8', 'utf-16le', 'ibm866', 'cp500'. */
  encoding: string;
}

/** Bytes handed to statistical detection: enough for a confident guess, bounded for huge files. */
const DETECTION_SAMPLE = 64 * 1024;

export function bomEncoding(bytes: Uint8Array): { encoding: string; length: number } | undefined {
  const [a, b, c, d] = bytes;
  if (a === 0xef && b === 0xbb && c === 0xbf) return { encoding: 'utf-8', length: 3 };
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) return { encoding: 'utf-32le', length: 4 };
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return { encoding: 'utf-32be', length: 4 };
  if (a === 0xff && b === 0xfe) return { encoding: 'utf-16le', length: 2 };
  if (a === 0xfe && b === 0xff) return { encoding: 'utf-16be', length: 2 };
  return undefined;
}

/**
 * BOM-less UTF-16 shows as NUL bytes in one byte position of most pairs (Latin text) and almost never in the
 * other. Requires a clear majority so binary data with scattered NULs is not mistaken for text.
 */
export function utf16WithoutBom(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const pairs = Math.floor(Math.min(bytes.length, 8192) / 2);
  if (pairs < 8) return undefined; // too little evidence: a few binary bytes can look like anything
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < pairs * 2; i += 2) {
    if (bytes[i] === 0) evenZeros++;
    if (bytes[i + 1] === 0) oddZeros++;
  }
  if (oddZeros / pairs > 0.4 && evenZeros / pairs < 0.02) return 'utf-16le';
  if (evenZeros / pairs > 0.4 && oddZeros / pairs < 0.02) return 'utf-16be';
  return undefined;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The text if the bytes are valid UTF-8, else undefined. With maxChars, at least its first maxChars characters
 * (all when shorter), decoded a megabyte at a time until there are: a 16 MB opening of a text file made a
 * 16-million-character string (32 MB when any character is beyond Latin-1) of which the text extractor keeps 4
 * million. The whole is checked either way, so the same bytes are UTF-8 or not as before.
 */
export function strictUtf8Decode(bytes: Uint8Array, maxChars = Infinity): string | undefined {
  if (maxChars === Infinity || bytes.length <= UTF8_PIECE) {
    try {
      return strictUtf8.decode(bytes);
    } catch {
      return undefined;
    }
  }
  if (!isUtf8(bytes)) return undefined;
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  const parts: string[] = [];
  let length = 0;
  let at = 0;
  for (; at < bytes.length && length < maxChars; at += UTF8_PIECE) {
    const part = decoder.decode(bytes.subarray(at, at + UTF8_PIECE), { stream: true });
    parts.push(part);
    length += part.length;
  }
  // Valid UTF-8 read to its end leaves nothing pending; stopped early, what is pending lies past maxChars.
  if (at >= bytes.length) parts.push(decoder.decode());
  return parts.join('');
}

const UTF8_PIECE = 1 << 20;

/** Decodes with a named encoding; undefined when no decoder knows the name. */
export function decodeAs(bytes: Uint8Array, label: string): string | undefined {
  const name = label.trim().toLowerCase();
  if (name === '') return undefined;
  const table = ebcdicTable(name);
  if (table !== undefined) return decodeEbcdic(bytes, table);
  const iconvName = ICONV_ALIASES[name] ?? name;
  if (iconv.encodingExists(iconvName)) return iconv.decode(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), iconvName);
  try {
    return new TextDecoder(name).decode(bytes);
  } catch {
    return undefined;
  }
}

/** jschardet (Python codec) names that iconv-lite spells differently. */
const ICONV_ALIASES: Record<string, string> = {
  ascii: 'utf-8', // ASCII is a subset; decoding as UTF-8 never loses anything
  'utf-8-sig': 'utf-8',
  'mac-roman': 'macroman',
  'mac-cyrillic': 'maccyrillic',
  'mac-greek': 'macgreek',
  'mac-iceland': 'maciceland',
  'mac-latin2': 'maccenteuro',
  'mac-turkish': 'macturkish',
  'euc-jis-2004': 'euc-jp',
  'shift_jis_2004': 'shift_jis',
  'iso2022-jp-2': 'iso-2022-jp',
  'iso2022-jp-2004': 'iso-2022-jp',
  'iso2022-jp-ext': 'iso-2022-jp',
  'hz-gb-2312': 'gb18030',
  'kz-1048': 'rk1048',
  ptcp154: 'pt154',
};

/** Labels a document may declare that must not be trusted without a BOM (HTML treats them as UTF-8). */
const UNTRUSTED_DECLARED = /^(utf-?16|utf-?32|ucs-?2|unicode)/i;

/**
 * Decodes document bytes. `declared` is an encoding the document names for itself; it wins over detection
 * (but not over a BOM), as browsers do, unless it names a UTF-16/32 variant without a BOM or no decoder knows it.
 * `maxChars`: the caller keeps only that many characters, so UTF-8 (the common case) may decode no further.
 */
export function decodeBytes(bytes: Uint8Array, declared?: string, options: { maxChars?: number } = {}): Decoded {
  const bom = bomEncoding(bytes);
  if (bom) {
    const text = decodeAs(bytes.subarray(bom.length), bom.encoding);
    if (text !== undefined) return { text, encoding: bom.encoding };
  }
  if (declared && !UNTRUSTED_DECLARED.test(declared)) {
    const label = declared.trim().toLowerCase();
    // A document that claims UTF-8 but is not valid UTF-8 is usually legacy text with a template header.
    const text = label === 'utf-8' || label === 'utf8' ? strictUtf8Decode(bytes) : decodeAs(bytes, label);
    if (text !== undefined) return { text, encoding: label };
  }
  // Before UTF-8: ASCII text in UTF-16 is valid UTF-8 too (NUL is a valid character), just not the right one.
  const utf16 = utf16WithoutBom(bytes);
  if (utf16) return { text: decodeAs(bytes, utf16) ?? '', encoding: utf16 };
  const utf8 = strictUtf8Decode(bytes, options.maxChars);
  if (utf8 !== undefined) return { text: utf8, encoding: 'utf-8' };
  return decodeDetected(bytes);
}

/**
 * jschardet's guesses, best first, from a copy of the library loaded for this call alone. Its first detection
 * inflates its statistical models into a 23 MB buffer that the module keeps for as long as it is loaded (+52 MB of a
 * thread's RSS), and every pipeline thread met some text that needed it. Such text is rare (one file in 1,082 of the
 * Debian documentation), so each call loads the library afresh (~80 ms: its CommonJS build, dropped from the
 * require cache, so nothing keeps it) and the collector takes it all back after. Same package, same guesses.
 */
export function detectEncodings(sample: Uint8Array): Jschardet.IDetectedMap[] {
  const load = createRequire(import.meta.url);
  const id = load.resolve('jschardet');
  delete load.cache[id];
  try {
    return (load(id) as typeof Jschardet).detectAll(sample);
  } finally {
    delete load.cache[id];
  }
}

function decodeDetected(bytes: Uint8Array): Decoded {
  const sample = bytes.subarray(0, DETECTION_SAMPLE);
  for (const guess of detectEncodings(sample)) {
    if (!guess.encoding) continue;
    const text = decodeAs(bytes, guess.encoding);
    if (text !== undefined) return { text, encoding: guess.encoding.toLowerCase() };
  }
  // Nothing better known: windows-1252 maps every byte to something readable.
  return { text: decodeAs(bytes, 'windows-1252') ?? '', encoding: 'windows-1252' };
}

/**
 * C0 control bytes that do not make a file look binary: tab, LF, VT, FF, CR, SUB (old DOS EOF), ESC (ANSI colour
 * codes in logs); NUL is decided apart (it ends the look at once).
 */
const TEXT_CONTROLS = (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12) | (1 << 13) | (1 << 26) | (1 << 27);

/**
 * Whether one window of bytes looks like text: no NUL, under 5 % other C0 control characters. An indexed loop and an
 * integer comparison (suspicious × 20 < length is exactly suspicious ÷ length < 0.05 for these integers): the
 * iterator and the division deoptimised it on most calls ("lost precision"), ~100 µs a file read in the slow tier.
 */
function windowLooksLikeText(sample: Uint8Array): boolean {
  let suspicious = 0;
  for (let i = 0; i < sample.length; i++) {
    const byte = sample[i]!;
    if (byte >= 0x20) continue;
    if (byte === 0) return false;
    if (((TEXT_CONTROLS >>> byte) & 1) === 0) suspicious++;
  }
  return suspicious * 20 < sample.length;
}

/**
 * Whether one window of UTF-16 (the given byte order, starting on a code unit) looks like text: no NUL code unit,
 * under 5 % C0 controls (those of TEXT_CONTROLS apart) and lone surrogates. A binary whose opening happens to show
 * UTF-16's NUL pattern fails here where its body holds runs of zeros (an ar archive's symbol table of big-endian
 * offsets, then its object files: a 6 MB Rust static library read as 1.9 million characters of UTF-16).
 */
function utf16WindowLooksLikeText(sample: Uint8Array, encoding: 'utf-16le' | 'utf-16be'): boolean {
  const units = sample.length >> 1;
  const low = encoding === 'utf-16le' ? 0 : 1;
  let suspicious = 0;
  let pendingHigh = false;
  for (let i = 0; i < units; i++) {
    const unit = sample[2 * i + low]! | (sample[2 * i + 1 - low]! << 8);
    if (unit === 0) return false;
    const isHigh = unit >= 0xd800 && unit <= 0xdbff;
    const isLow = unit >= 0xdc00 && unit <= 0xdfff;
    if ((pendingHigh && !isLow) || (isLow && !pendingHigh && i > 0)) suspicious++;
    pendingHigh = isHigh;
    if (unit < 0x20 && ((TEXT_CONTROLS >>> unit) & 1) === 0) suspicious++;
  }
  return suspicious * 20 < Math.max(1, units);
}

const HEAD_WINDOW = 8192;
const WINDOW = 4096;
/** Windows sampled after the head: a binary body is found wherever it starts, at bounded cost (256 KB read). */
const SAMPLED_WINDOWS = 64;

/**
 * Whether bytes look like text in some encoding rather than binary data, in the first 8 KB and in windows spread
 * over the rest (a text header over binary data, as FITS images and signed or scientific formats have, is
 * binary): UTF-16 (by its byte-order mark or its NUL pattern) by its code units, anything else by its bytes (no
 * NUL, few control characters). A UTF-8 or UTF-32 byte-order mark is taken at its word.
 */
export function looksLikeText(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return true;
  const bom = bomEncoding(bytes)?.encoding;
  const utf16 = bom === 'utf-16le' || bom === 'utf-16be' ? bom : bom === undefined ? utf16WithoutBom(bytes) : undefined;
  if (bom !== undefined && utf16 === undefined) return true;
  const looks = utf16 === undefined ? windowLooksLikeText : (window: Uint8Array) => utf16WindowLooksLikeText(window, utf16);
  // UTF-16's windows start on a code unit: an even offset (after a BOM too, which is one unit).
  const align = utf16 === undefined ? 1 : 2;
  if (!looks(bytes.subarray(0, HEAD_WINDOW))) return false;
  const rest = bytes.length - HEAD_WINDOW;
  if (rest <= 0) return true;
  const windows = Math.min(SAMPLED_WINDOWS, Math.ceil(rest / WINDOW));
  for (let i = 0; i < windows; i++) {
    const offset = HEAD_WINDOW + Math.floor(((rest - Math.min(rest, WINDOW)) * (i + 1)) / windows);
    const at = offset - (offset % align);
    if (!looks(bytes.subarray(at, at + WINDOW))) return false;
  }
  return true;
}
