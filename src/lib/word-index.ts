/**
 * A read-only word → line index over a word list (one word per line): the built-in embedder's 341,479-word
 * vocabulary, which both its tokenizer (word → id) and the keyword ranking's rarity (word → frequency rank) look
 * words up in. A Map of it holds every word as a string of its own: 32 MB of heap per thread and per reader, so
 * 64 MB in every pipeline thread. Here the list is its UTF-16 code units in one array, with line starts in an
 * Int32Array and an open-addressing hash table of line numbers (~11 MB), and every reader of the same file on a
 * thread shares one. Hand-written: a hash table over one string is twenty lines, and no library keeps its keys out
 * of the heap's string objects. The three arrays live in SharedArrayBuffers, so one thread can build the index and
 * others use it as it is (`shared()`, `adopt()`): the pipeline pool builds it once and sends it to every pipeline
 * thread with their tasks, one copy in the process instead of one per thread.
 */
import { readFileSync } from 'node:fs';

/** FNV-1a over the UTF-16 code units of text[start, end). */
function hash(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * FNV-1a over text[start, end) with A-Z read as a-z: the same hash as `hash` of the lower-cased span, without
 * making that string (the built-in embedder's tokenizer looks up every ASCII word of a text so, `lineOfLowerAscii`).
 */
function hashLowerAscii(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    h = Math.imul(h ^ (c >= 65 && c <= 90 ? c + 32 : c), 0x01000193);
  }
  return h >>> 0;
}

/** An index's memory, as another thread receives it (typed arrays over SharedArrayBuffers: sent, never copied). */
export interface SharedWordIndex {
  codes: Uint16Array;
  starts: Int32Array;
  table: Int32Array;
  lines: number;
  distinct: number;
}

function sharedArray<T extends Uint16Array | Int32Array>(Type: { new (buffer: SharedArrayBuffer): T; BYTES_PER_ELEMENT: number }, length: number): T {
  return new Type(new SharedArrayBuffer(length * Type.BYTES_PER_ELEMENT));
}

export class WordIndex {
  /** The list's UTF-16 code units (the text of the file). */
  readonly #codes: Uint16Array;
  /** Line i is codes[starts[i], starts[i + 1] - 1): the last entry is one past the final line's end. */
  readonly #starts: Int32Array;
  /** Line number + 1 of each distinct word, 0 for an empty slot; the first line holding a word wins. */
  readonly #table: Int32Array;
  readonly #mask: number;
  /** Lines in the list (a final newline ends the last line, it does not start another). */
  readonly lines: number;
  /** Distinct words in the list. */
  readonly distinct: number;

  constructor(source: string | SharedWordIndex) {
    if (typeof source !== 'string') {
      ({ codes: this.#codes, starts: this.#starts, table: this.#table, lines: this.lines, distinct: this.distinct } = source);
      this.#mask = this.#table.length - 1;
      return;
    }
    const text = source;
    this.#codes = sharedArray(Uint16Array, text.length);
    for (let i = 0; i < text.length; i++) this.#codes[i] = text.charCodeAt(i);
    const starts = [0];
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    const finalNewline = text.endsWith('\n');
    if (text.length === 0 || finalNewline) starts.pop();
    this.lines = starts.length;
    starts.push(finalNewline ? text.length : text.length + 1); // as if every line ended with a newline
    this.#starts = sharedArray(Int32Array, starts.length);
    this.#starts.set(starts);
    let size = 1;
    while (size < this.lines * 2) size *= 2;
    this.#table = sharedArray(Int32Array, size);
    this.#mask = size - 1;
    let distinct = 0;
    for (let line = 0; line < this.lines; line++) {
      const start = this.#starts[line]!;
      const end = this.#starts[line + 1]! - 1;
      let slot = hash(text, start, end) & this.#mask;
      for (;;) {
        const held = this.#table[slot]!;
        if (held === 0) {
          this.#table[slot] = line + 1;
          distinct++;
          break;
        }
        if (this.#sameAs(held - 1, text, start, end)) break;
        slot = (slot + 1) & this.#mask;
      }
    }
    this.distinct = distinct;
  }

  /** The index of a word list file, read once per thread and path (its readers share it). */
  static fromFile(file: string): WordIndex {
    let index = loaded.get(file);
    if (!index) loaded.set(file, (index = new WordIndex(readFileSync(file, 'utf8'))));
    return index;
  }

  /** Makes `fromFile(file)` on this thread answer an index built elsewhere (unless this thread has one already). */
  static adopt(file: string, index: SharedWordIndex): void {
    if (!loaded.has(file)) loaded.set(file, new WordIndex(index));
  }

  /** This index's memory, to send to another thread (shared, not copied). */
  shared(): SharedWordIndex {
    return { codes: this.#codes, starts: this.#starts, table: this.#table, lines: this.lines, distinct: this.distinct };
  }

  /** The first line holding exactly `word`, or -1. */
  lineOf(word: string): number {
    let slot = hash(word, 0, word.length) & this.#mask;
    for (;;) {
      const held = this.#table[slot]!;
      if (held === 0) return -1;
      if (this.#sameAs(held - 1, word, 0, word.length)) return held - 1;
      slot = (slot + 1) & this.#mask;
    }
  }

  /**
   * `lineOf(text.slice(start, end).toLowerCase())` for a span of ASCII characters, without making either string:
   * A-Z compare as a-z (for ASCII, toLowerCase does exactly that).
   */
  lineOfLowerAscii(text: string, start: number, end: number): number {
    let slot = hashLowerAscii(text, start, end) & this.#mask;
    for (;;) {
      const held = this.#table[slot]!;
      if (held === 0) return -1;
      if (this.#sameAsLowerAscii(held - 1, text, start, end)) return held - 1;
      slot = (slot + 1) & this.#mask;
    }
  }

  /** The word on line `line`. */
  line(line: number): string {
    if (!Number.isInteger(line) || line < 0 || line >= this.lines) throw new RangeError(`no line ${line}`);
    let word = '';
    for (let i = this.#starts[line]!; i < this.#starts[line + 1]! - 1; i++) word += String.fromCharCode(this.#codes[i]!);
    return word;
  }

  #sameAs(line: number, other: string, start: number, end: number): boolean {
    const from = this.#starts[line]!;
    if (this.#starts[line + 1]! - 1 - from !== end - start) return false;
    for (let i = 0; i < end - start; i++) if (this.#codes[from + i] !== other.charCodeAt(start + i)) return false;
    return true;
  }

  #sameAsLowerAscii(line: number, other: string, start: number, end: number): boolean {
    const from = this.#starts[line]!;
    if (this.#starts[line + 1]! - 1 - from !== end - start) return false;
    for (let i = 0; i < end - start; i++) {
      const c = other.charCodeAt(start + i);
      if (this.#codes[from + i] !== (c >= 65 && c <= 90 ? c + 32 : c)) return false;
    }
    return true;
  }
}

const loaded = new Map<string, WordIndex>();
