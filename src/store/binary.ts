/**
 * Values as PostgreSQL's send functions write them (the binary format, big-endian), read from the raw bytes
 * SqlExecutor.queryBytes and readBytes answer. The binary format is how hot statements leave PGlite: its text format is
 * decoded value by value in JavaScript (each through a TextDecoder and a type parser), a third of a search's
 * result rows at 50 files. Hand-written: the few types read this way are simple, and their layout is PostgreSQL's
 * documented wire format (int8send, float8send, textsend, timestamptz_send, array_send).
 */

export function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** A float8 as float8send wrote it. */
export function decodeFloat8(bytes: Uint8Array | null): number {
  if (!bytes || bytes.byteLength !== 8) throw new Error('expected an 8-byte float8');
  return view(bytes).getFloat64(0);
}

/** An int4 as int4send wrote it. */
export function decodeInt4(bytes: Uint8Array | null): number {
  if (!bytes || bytes.byteLength !== 4) throw new Error('expected a 4-byte int4');
  return view(bytes).getInt32(0);
}

/** An int8 as int8send wrote it. */
export function decodeInt8(bytes: Uint8Array | null): number {
  if (!bytes || bytes.byteLength !== 8) throw new Error('expected an 8-byte int8');
  return Number(view(bytes).getBigInt64(0));
}

/** A text as textsend wrote it (UTF-8, the database's encoding); '' for NULL. */
export function decodeText(bytes: Uint8Array | null): string {
  return bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8') : '';
}

/**
 * The first `maxCodePoints` characters (code points, as PostgreSQL's left() counts them) of a text's UTF-8 bytes, or
 * of their first part: 4 × maxCodePoints bytes always hold that many whole characters, and a character the cut
 * split at the end is left out. Counting characters in JavaScript over the bytes costs a fraction of left()'s
 * count in WebAssembly.
 */
export function decodeTextHead(bytes: Uint8Array | null, maxCodePoints: number): string {
  if (!bytes) return '';
  let end = bytes.length;
  let count = 0;
  for (let i = 0; i < bytes.length; i++) {
    // Every byte but a continuation byte (10xxxxxx) starts a character.
    if ((bytes[i]! & 0xc0) !== 0x80 && count++ === maxCodePoints) {
      end = i;
      break;
    }
  }
  if (end === bytes.length) end = wholeCharacters(bytes);
  return decodeText(bytes.subarray(0, end));
}

/** The length of `bytes` without a character cut short at their end. */
function wholeCharacters(bytes: Uint8Array): number {
  let lead = bytes.length - 1;
  while (lead >= 0 && (bytes[lead]! & 0xc0) === 0x80) lead--;
  if (lead < 0) return 0;
  const b = bytes[lead]!;
  const size = b < 0x80 ? 1 : b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2;
  return lead + size <= bytes.length ? bytes.length : lead;
}

/** timestamptz_send: microseconds since 2000-01-01 UTC; these two stand for ±infinity. */
const POSTGRES_EPOCH_MS = Date.UTC(2000, 0, 1);
const INFINITY_US = 0x7fffffffffffffffn;
const MINUS_INFINITY_US = -0x8000000000000000n;

/**
 * A timestamptz as timestamptz_send wrote it, as ISO 8601 with milliseconds (the text path's `new Date()` keeps
 * the first three digits of the fraction, so the microseconds are floored the same way); null for NULL and for
 * ±infinity, which no Date holds.
 */
export function decodeTimestamptz(bytes: Uint8Array | null): string | null {
  if (!bytes) return null;
  if (bytes.byteLength !== 8) throw new Error('expected an 8-byte timestamptz');
  const us = view(bytes).getBigInt64(0);
  if (us === INFINITY_US || us === MINUS_INFINITY_US) return null;
  // Floor division (BigInt division truncates toward zero): a time before 2000 is negative.
  const ms = us >= 0n ? us / 1000n : -((-us + 999n) / 1000n);
  const date = new Date(POSTGRES_EPOCH_MS + Number(ms));
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/**
 * A one-dimensional text[] as array_send wrote it: dimensions, a has-nulls flag, the element type, each
 * dimension's size and lower bound, then each element's length (-1 for NULL) and bytes. NULL elements are left
 * out (our arrays hold none); [] for NULL or an empty array.
 */
export function decodeTextArray(bytes: Uint8Array | null): string[] {
  if (!bytes) return [];
  const v = view(bytes);
  const dimensions = v.getInt32(0);
  if (dimensions === 0) return [];
  if (dimensions !== 1) throw new Error(`expected a one-dimensional array, got ${dimensions} dimensions`);
  const count = v.getInt32(12);
  const out: string[] = [];
  for (let i = 0, at = 20; i < count; i++) {
    const size = v.getInt32(at);
    at += 4;
    if (size < 0) continue;
    out.push(decodeText(bytes.subarray(at, at + size)));
    at += size;
  }
  return out;
}
