/**
 * The built-in offline embedder: a SIF-weighted average of GloVe word vectors, from the table that `npm run
 * build:embedder` (scripts/build-static-embedder.ts) writes, computed by static-table.ts (plain TypeScript over one
 * table per process, shared by every thread that embeds). This module tokenises and chunks: words are lowercased
 * and accent-folded, looked up whole, and, when a hyphenated word is unknown, by its parts (GloVe knows "t-cell"
 * but not "il-6-mediated"). Words the vocabulary lacks are dropped.
 *
 * Chunks: 96 words (roughly a paragraph), 12 shared, the title prepended to each. Measured on the
 * SciFact train queries (bench/static-embedder-scifact.ts, dense only, best chunk per document), shorter
 * windows rank better although a word average has no order to lose: nDCG@10 0.348 for 512 words (one chunk
 * per abstract), 0.358 for 256, 0.368 for 128, 0.383 for 96, 0.385–0.393 for 64, 0.402 for 32. A short
 * window keeps the title's words (and a passage's topic) from being averaged away. Each chunk is a row in
 * the vector index, so 96 takes most of the gain at 2.7 chunks per abstract instead of 7.5 for 32.
 *
 * A long document gets at most DEFAULT_MAX_CHUNKS chunks, its windows widened to cover all of its text: every
 * vector is a graph insert on the store's one thread, and long documents held most of them (README "Long
 * documents: fewer vectors", measured with bench/long-documents.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Chunk } from '../types.js';
import type { Embedder, EmbedderInfo } from './types.js';
import { StaticTable, type SharedStaticTable, type StaticTableFiles } from './static-table.js';
import { windows } from './windows.js';
import { WordIndex } from '../../lib/word-index.js';

/** meta.json of a built-in embedder build (written by scripts/build-static-embedder.ts). */
export interface StaticEmbedderMeta {
  builderVersion: number;
  kind: 'static';
  model: string;
  dimension: number;
  vocabSize: number;
  sif: { a: number; zipfExponent: number; probability: string };
  quantization: string;
  /** The table's files: int8 rows (vocabSize × dimension) and float32 row weights, raw little-endian. */
  table: StaticTableFiles & { padId: number };
  source: { package: string; version: string; file: string; bytes: number; mtimeMs: number; sha256: string };
  files: Record<string, { bytes: number; sha256: string }>;
}

export interface StaticOptions {
  /** The table, read by another thread (shared memory: not copied); by default the thread reads the files. */
  table?: SharedStaticTable;
  /** Words per chunk (default 96; a hyphenated word looked up by parts counts each part). */
  chunkWords?: number;
  /** Words shared by consecutive chunks (default 12). */
  overlapWords?: number;
  /**
   * Most chunks (vectors) one document gets (default 32; 0: no limit): a longer text gets wider windows, so its
   * whole text is still covered (see boundedWindows below).
   */
  maxChunks?: number;
}

/** The command that builds the built-in embedder, for error messages. */
export const BUILD_COMMAND = 'npm run build:embedder';

/** A word of the text, its span there, and its vocabulary ids (none when unknown, several for parts). */
export interface StaticWord {
  start: number;
  end: number;
  ids: readonly number[];
}

/** Runs of letters, digits and marks, joined by single hyphens. */
const WORD = /[\p{L}\p{N}\p{M}]+(?:-[\p{L}\p{N}\p{M}]+)*/gu;
const ASCII_WORD = /^[a-z0-9-]+$/;
const HYPHEN = 0x2d;
const MARKS = /\p{M}/gu;
/** Latin letters that do not decompose into a base letter and a mark. */
const LETTER_FOLDS: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ı: 'i', þ: 'th', ð: 'd' };
const FOLDABLE = new RegExp(`[${Object.keys(LETTER_FOLDS).join('')}]`, 'g');

function fold(lower: string): string {
  return lower.normalize('NFD').replace(MARKS, '').replace(FOLDABLE, (c) => LETTER_FOLDS[c] ?? c);
}

/** 0-9, A-Z, a-z: WORD's only characters below 128 (every other letter, digit and mark is above 127). */
function isAsciiWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

const NO_IDS: readonly number[] = Object.freeze([]);

export class StaticTokenizer {
  /** word → id: the id is the word's line in the vocabulary (line 0 is [PAD], never a word's id). */
  private readonly vocab: WordIndex;
  /**
   * id → [id], made at a word's first sighting and shared after, so tokenising allocates nothing per known word
   * and loading allocates nothing per vocabulary word (341k frozen arrays cost a query lane ~0.5 s at every start).
   */
  private readonly singles: (readonly number[] | undefined)[] = [];
  readonly size: number;
  /** Lines of the vocabulary: every id is below it. */
  readonly lines: number;

  /** From the vocabulary's words in id order (tests), or its index (the vocabulary file, shared per thread). */
  constructor(words: readonly string[] | WordIndex) {
    this.vocab = words instanceof WordIndex ? words : new WordIndex(words.join('\n'));
    this.size = this.vocab.distinct - (this.vocab.lines > 0 ? 1 : 0); // [PAD] is no word
    this.lines = this.vocab.lines;
  }

  static fromVocabFile(file: string): StaticTokenizer {
    return new StaticTokenizer(WordIndex.fromFile(file));
  }

  words(text: string): StaticWord[] {
    const out: StaticWord[] = [];
    this.scan(text, (start, end, ids) => out.push({ start, end, ids }));
    return out;
  }

  /**
   * Each word of the text in order: its span and its ids (shared arrays: read them, do not keep them). The words
   * are WORD's matches. A word of ASCII characters only (most of them) is found and looked up by a loop over the
   * character codes, without the match, its lower-cased string or its parts' strings (0.46 → 0.22 CPU ms a text
   * over the Debian corpus's fifth, `npm run bench:tokenizer`); where a character above 127 is met, inside a word, right after it or
   * between two, WORD itself reads on from there (from the word's start when inside one), so every match is
   * WORD's: the fast loop only ever stands where the expression's own scan would.
   */
  scan(text: string, visit: (start: number, end: number, ids: readonly number[]) => void): void {
    const n = text.length;
    let i = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c >= 128) {
        i = this.scanMatch(text, i, visit);
        continue;
      }
      if (!isAsciiWordChar(c)) {
        i++;
        continue;
      }
      const start = i;
      let end = i + 1;
      let ascii = true;
      for (;;) {
        while (end < n && isAsciiWordChar(text.charCodeAt(end))) end++;
        if (end === n) break;
        const after = text.charCodeAt(end);
        if (after >= 128) {
          ascii = false;
          break;
        }
        if (after !== HYPHEN || end + 1 === n) break;
        const next = text.charCodeAt(end + 1);
        if (next >= 128) {
          ascii = false;
          break;
        }
        if (!isAsciiWordChar(next)) break;
        end += 2;
      }
      if (ascii) {
        visit(start, end, this.lookupAscii(text, start, end));
        i = end;
      } else {
        i = this.scanMatch(text, start, visit);
      }
    }
  }

  /** WORD's next match at or after `from`, visited; returns where it ends (the text's end when there is none). */
  private scanMatch(text: string, from: number, visit: (start: number, end: number, ids: readonly number[]) => void): number {
    WORD.lastIndex = from;
    const m = WORD.exec(text);
    if (!m) return text.length;
    let key = m[0].toLowerCase();
    if (!ASCII_WORD.test(key)) key = fold(key);
    const end = m.index + m[0].length;
    visit(m.index, end, this.lookup(key));
    return end;
  }

  ids(text: string): number[] {
    const out: number[] = [];
    for (const w of this.words(text)) for (const id of w.ids) out.push(id);
    return out;
  }

  private lookup(key: string): readonly number[] {
    const whole = this.id(key);
    if (whole !== undefined) return (this.singles[whole] ??= Object.freeze([whole]));
    if (!key.includes('-')) return NO_IDS;
    const ids: number[] = [];
    for (const part of key.split('-')) {
      const p = this.id(part);
      if (p !== undefined) ids.push(p);
    }
    return ids;
  }

  /** lookup(text.slice(start, end).toLowerCase()) for an ASCII word, without the strings. */
  private lookupAscii(text: string, start: number, end: number): readonly number[] {
    const whole = this.vocab.lineOfLowerAscii(text, start, end);
    if (whole > 0) return (this.singles[whole] ??= Object.freeze([whole]));
    let at = start;
    while (at < end && text.charCodeAt(at) !== HYPHEN) at++;
    if (at === end) return NO_IDS;
    const ids: number[] = [];
    for (let from = start; from < end; from = at + 1) {
      at = from;
      while (at < end && text.charCodeAt(at) !== HYPHEN) at++;
      const part = this.vocab.lineOfLowerAscii(text, from, at);
      if (part > 0) ids.push(part);
    }
    return ids;
  }

  private id(word: string): number | undefined {
    const line = this.vocab.lineOf(word);
    return line > 0 ? line : undefined;
  }
}

/** Reads meta.json; undefined when the folder holds no complete build. */
export function readStaticMeta(dir: string): StaticEmbedderMeta | undefined {
  const file = path.join(dir, 'meta.json');
  if (!existsSync(file)) return undefined;
  let meta: StaticEmbedderMeta;
  try {
    meta = JSON.parse(readFileSync(file, 'utf8')) as StaticEmbedderMeta;
  } catch {
    return undefined; // unreadable or half-written: treat as not built
  }
  const complete = Object.keys(meta.files ?? {}).every((f) => existsSync(path.join(dir, f)));
  // A build without `table` (an ONNX graph, builder version 1) is rebuilt by `npm run build`.
  return meta.kind === 'static' && meta.table !== undefined && complete ? meta : undefined;
}

/** Chunks a document gets at most: measured in bench/long-documents.ts (README "Long documents"). */
export const DEFAULT_MAX_CHUNKS = 32;

/**
 * windows() of `budget` words, widened for a long text until there are at most `maxChunks` (0: no limit): a
 * document never costs more than maxChunks vectors (each one a graph insert on the store's thread), and every word
 * of it stays in some chunk, so a deep passage keeps a vector that points its way. Measured on known-item spans of
 * the Debian documentation (bench/long-documents.ts): the first 32 chunks only found 0.23 of the spans beyond
 * chunk 32, averaging the narrow chunks' vectors down to 32 found 0.40, wider windows 0.42 (all chunks: 0.58).
 */
export function boundedWindows(counts: ArrayLike<number>, budget: number, overlap: number, maxChunks: number): [number, number][] {
  let width = budget;
  if (maxChunks > 0) {
    let total = 0;
    for (let i = 0; i < counts.length; i++) total += counts[i]!;
    // Windows step by about (width - overlap) tokens: the width that gives maxChunks steps over the text.
    width = Math.max(budget, Math.ceil((total - overlap) / maxChunks) + overlap);
  }
  for (;;) {
    const out = windows(counts, width, overlap);
    // Word boundaries and the overlap's rounding can add a window or two: widen a little until it fits.
    if (maxChunks === 0 || out.length <= maxChunks) return out;
    width = Math.ceil(width * 1.05) + 1;
  }
}

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1) throw new Error(`options.${name} must be a positive integer (got ${String(v)})`);
  return v;
}

/** A text's words as growing typed arrays: word i spans starts[i]..ends[i], its ids are ids[idStarts[i]..idStarts[i + 1]]. */
class WordSpans {
  count = 0;
  starts = new Int32Array(1024);
  ends = new Int32Array(1024);
  /** One more than count: idStarts[count] is where the next word's ids go. */
  idStarts = new Int32Array(1025);
  ids = new Int32Array(1024);

  add(start: number, end: number, ids: readonly number[]): void {
    if (this.count + 1 >= this.starts.length) {
      this.starts = grown(this.starts);
      this.ends = grown(this.ends);
      this.idStarts = grown(this.idStarts);
    }
    let at = this.idStarts[this.count]!;
    while (at + ids.length > this.ids.length) this.ids = grown(this.ids);
    for (const id of ids) this.ids[at++] = id;
    this.starts[this.count] = start;
    this.ends[this.count] = end;
    this.idStarts[++this.count] = at;
  }

  /** Each word's tokens as windows count them: its ids, and an unknown word as one. */
  tokenCounts(): Int32Array {
    const counts = new Int32Array(this.count);
    for (let i = 0; i < this.count; i++) counts[i] = Math.max(1, this.idStarts[i + 1]! - this.idStarts[i]!);
    return counts;
  }
}

function grown(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const next = new Int32Array(array.length * 2);
  next.set(array);
  return next;
}

export class StaticEmbedder implements Embedder {
  private readonly chunkWords: number;
  private readonly overlapWords: number;
  private readonly maxChunks: number;
  /** Token ids of the latest chunk() result by chunk text (one document's worth), so embed() skips them. */
  private readonly lastChunkIds = new Map<string, number[]>();

  private constructor(
    readonly info: EmbedderInfo,
    readonly tokenizer: StaticTokenizer,
    readonly table: StaticTable,
    options: StaticOptions,
  ) {
    this.chunkWords = positiveInt('chunkWords', options.chunkWords, 96);
    this.overlapWords = options.overlapWords ?? 12;
    if (!Number.isInteger(this.overlapWords) || this.overlapWords < 0 || this.overlapWords > this.chunkWords >> 1) {
      throw new Error('options.overlapWords must be an integer between 0 and half of chunkWords');
    }
    this.maxChunks = options.maxChunks ?? DEFAULT_MAX_CHUNKS;
    if (!Number.isInteger(this.maxChunks) || this.maxChunks < 0) throw new Error('options.maxChunks must be a non-negative integer');
  }

  static async load(dir: string, options: StaticOptions = {}): Promise<StaticEmbedder> {
    const meta = readStaticMeta(dir);
    if (meta === undefined) {
      throw new Error(`the built-in embedder is not built in ${dir}: run \`${BUILD_COMMAND}\``);
    }
    const tokenizer = StaticTokenizer.fromVocabFile(path.join(dir, 'vocab.txt'));
    const table = options.table ? new StaticTable(options.table) : StaticTable.read(dir, meta.table, meta.vocabSize, meta.dimension);
    if (table.dimension !== meta.dimension || table.rows !== meta.vocabSize || tokenizer.lines !== table.rows) {
      throw new Error(
        `the built-in embedder in ${dir} does not fit together (${tokenizer.lines} words, a table of ${table.rows} rows of ` +
          `${table.dimension}, meta.json ${meta.vocabSize} of ${meta.dimension}): run \`${BUILD_COMMAND} -- --force\``,
      );
    }
    const info: EmbedderInfo = { kind: 'static', model: meta.model, dimension: meta.dimension };
    return new StaticEmbedder(info, tokenizer, table, options);
  }

  chunk(text: string, title: string): Chunk[] {
    const cleanTitle = title.trim();
    const prefix = cleanTitle === '' ? '' : `${cleanTitle}\n`;
    const titleIds = this.tokenizer.ids(cleanTitle);
    // The words in typed arrays, not an object each: a 2,000,000-character text has ~300,000 words, whose
    // objects outlived the young generation and went to the old one (~30 MB of a thread's heap at its peak).
    const words = new WordSpans();
    this.tokenizer.scan(text, (start, end, ids) => words.add(start, end, ids));
    this.lastChunkIds.clear();
    if (words.count === 0) return prefix === '' ? [] : [{ index: 0, text: cleanTitle, start: 0, end: 0 }];
    // Unknown words count too (as one), so runs of numbers or foreign text cannot make a chunk huge.
    const counts = words.tokenCounts();
    return boundedWindows(counts, this.chunkWords, this.overlapWords, this.maxChunks).map(([first, last], index) => {
      const start = words.starts[first]!;
      const end = words.ends[last]!;
      const chunkText = prefix + text.slice(start, end);
      // The words are already looked up: remember their ids for the embed() call that usually follows.
      const ids = titleIds.slice();
      for (let k = words.idStarts[first]!; k < words.idStarts[last + 1]!; k++) ids.push(words.ids[k]!);
      this.lastChunkIds.set(chunkText, ids);
      return { index, text: chunkText, start, end };
    });
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.table.embed(this.lastChunkIds.get(t) ?? this.tokenizer.ids(t)));
  }

  /** A query is embedded like any text: a word average has no query instruction. */
  async embedQuery(text: string): Promise<Float32Array> {
    const [vector] = await this.embed([text]);
    return vector as Float32Array;
  }

  /** Nothing to release: the table is garbage once no embedder of any thread holds it. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
