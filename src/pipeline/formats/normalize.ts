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
const HORIZONTAL_SPACE = /[ \t\f\v\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]+/g;

/**
 * Collapses runaway whitespace while keeping paragraph breaks: line endings become \n, runs of horizontal
 * space become one space, lines are trimmed, and more than one blank line becomes exactly one. NFC-normalised
 * so the same word always has the same code points.
 */
export function normalizeText(input: string): string {
  return input
    .replace(/\r\n?|[\u2028\u2029\u0085]/g, '\n')
    .replace(CONTROL, '')
    .replace(HORIZONTAL_SPACE, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
    .normalize('NFC')
    .replace(LONE_SURROGATE, '\uFFFD');
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
