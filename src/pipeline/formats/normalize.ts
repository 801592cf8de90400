/**
 * Text clean-up shared by every extractor, and a bounded collector so that huge documents (a spreadsheet with a
 * million cells) stop being read once enough text is in hand.
 */

// Control characters other than tab and newline (C0 and C1), plus the BOM and other zero-width formatting that
// extractors surface as noise. \u00AD (soft hyphen) is dropped so hyphenated words join again.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000E-\u001F\u007F-\u009F\u00AD\uFEFF\u200B]/g;
// A UTF-16 surrogate without its pair: JSON.stringify writes it as an escape PostgreSQL's jsonb refuses.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/**
 * A run of horizontal space other than one plain space (which the collapse would only replace by itself): a space
 * followed by more, or a run starting with any other space character. Matching every single space between words
 * made this pass half of normalisation's time (~160 µs of ~330 a text on the Debian documentation's fifth).
 */
const HORIZONTAL_RUN = /(?: [ \t\f\v\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]|[\t\f\v\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000])[ \t\f\v\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]*/g;
/** A newline with a space beside it (a bare newline, the common case, is left alone rather than replaced by itself). */
const SPACED_NEWLINE = / \n ?|\n /g;
/** Any surrogate: most texts have none, and then the lone-surrogate pass (its lookbehind is slow) is skipped. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Collapses runaway whitespace while keeping paragraph breaks: line endings become \n, runs of horizontal
 * space become one space, lines are trimmed, and more than one blank line becomes exactly one. NFC-normalised
 * so the same word always has the same code points.
 *
 * A long text is normalised in pieces (normalizePiece) joined once: each of the eight passes made a copy of the
 * whole text, and a string past 128 KB lives in V8's large-object space, freed only by a full collection, so a
 * 2,000,000-character text left ~100 MB of copies in the old generation (a pipeline thread's heap peak on the
 * Debian documentation's largest texts). Pieces of ~16,000 characters are young garbage, taken back at once.
 */
export function normalizeText(input: string): string {
  if (input.length <= PIECE_CHARS) return normalizePiece(input).trim();
  const pieces: string[] = [];
  for (let start = 0; start < input.length; ) {
    const end = pieceEnd(input, start + PIECE_CHARS);
    pieces.push(normalizePiece(input.slice(start, end)));
    start = end;
  }
  return pieces.join('').trim();
}

/** Characters a piece holds, about (two-byte strings of this length stay well under V8's 128 KB large objects). */
const PIECE_CHARS = 16_384;

/** ASCII letters and digits: no pass matches them, none drops them, and NFC composes nothing into or onto them. */
const isInert = (code: number): boolean => (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);

/**
 * Where the piece from `from` ends: between two inert characters at or after `from`, so no pass matches across it
 * and pieces normalise to what the whole would (every match of a pass holds only other characters; NFC never
 * combines across a character that starts anew and cannot compose). The text's end when there is no such place.
 */
function pieceEnd(text: string, from: number): number {
  for (let i = Math.max(1, from); i < text.length; i++) {
    if (isInert(text.charCodeAt(i)) && isInert(text.charCodeAt(i - 1))) return i;
  }
  return text.length;
}

/**
 * normalizeText's passes except the trim, which only the whole text's ends need (it commutes with the last two:
 * once horizontal space is one space, only spaces and newlines are left to trim, and NFC and the surrogate pass
 * neither make nor take those).
 */
function normalizePiece(input: string): string {
  const text = input
    .replace(/\r\n?|[\u2028\u2029\u0085]/g, '\n')
    .replace(CONTROL, '')
    .replace(HORIZONTAL_RUN, ' ')
    .replace(SPACED_NEWLINE, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .normalize('NFC');
  return SURROGATE.test(text) ? text.replace(LONE_SURROGATE, '\uFFFD') : text;
}

/**
 * Metadata as the store can keep it: a document's own fields (a PDF's Author, an e-mail's Subject) may hold what
 * PostgreSQL's text and JSON cannot (NUL, a lone surrogate) or control characters nobody wants to see; they are
 * dropped (a lone surrogate becomes U+FFFD) in keys and values alike, as the text's are. Numbers that JSON cannot
 * hold (NaN, Infinity) are left out.
 */
export function cleanMetadata<M extends Record<string, string | number | string[] | undefined>>(metadata: M): M {
  const clean = (s: string): string => s.replace(CONTROL, '').replace(LONE_SURROGATE, '\uFFFD');
  const out: Record<string, string | number | string[]> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (value === undefined || (typeof value === 'number' && !Number.isFinite(value))) continue;
    out[clean(key)] = typeof value === 'string' ? clean(value) : Array.isArray(value) ? value.map(clean) : value;
  }
  return out as M;
}

/** How much text an extractor may collect, and until when (Date.now(); Infinity: no time limit). */
export interface TextLimits {
  maxTextChars: number;
  deadline?: number;
}

/**
 * Collects text pieces up to a character budget (with some slack, since normalisation shrinks text later) and
 * until a deadline. `full` tells an extractor it may stop walking the document: every extractor's loops ask it,
 * so a document too long or too slow to read whole ends with what was read (`truncated`, `timedOut`).
 */
export class TextCollector {
  private readonly parts: string[] = [];
  private length = 0;
  private readonly budget: number;
  private readonly deadline: number;
  truncated = false;
  /** The deadline passed before the document was read to its end. */
  timedOut = false;

  constructor(limits: number | TextLimits) {
    const { maxTextChars, deadline } = typeof limits === 'number' ? { maxTextChars: limits, deadline: Infinity } : limits;
    // Twice the budget: whitespace collapsing can remove a lot, and the stage cuts exactly afterwards.
    this.budget = Math.max(1024, maxTextChars * 2);
    this.deadline = deadline ?? Infinity;
  }

  get full(): boolean {
    if (this.length >= this.budget) return true;
    if (this.deadline !== Infinity && !this.timedOut && Date.now() > this.deadline) {
      this.timedOut = true;
      this.truncated = true;
    }
    return this.timedOut;
  }


  push(piece: string): void {
    if (piece.length === 0) return;
    if (this.full) {
      this.truncated = true;
      return;
    }
    const room = this.budget - this.length;
    if (piece.length > room) {
      this.parts.push(piece.slice(0, room));
      this.length += room;
      this.truncated = true;
      return;
    }
    this.parts.push(piece);
    this.length += piece.length;
  }

  /** Ends the current paragraph (no-op if the text already ends with a newline). */
  newline(): void {
    const last = this.parts[this.parts.length - 1];
    if (last !== undefined && !last.endsWith('\n')) this.push('\n');
  }

  toString(): string {
    return this.parts.join('');
  }
}
