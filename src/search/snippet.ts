/**
 * Result snippets, cut in JavaScript from the stored text: the one or two passages of a file that hold the most
 * query words, with the matched words' [start, end) ranges. ts_headline did this in the database, but it runs
 * PostgreSQL's full text parser over every result's text, which under PGlite (WASM) cost about 15 ms of a 25 ms
 * query at 50 results; here it costs about 12 ms for 50 results of 20,000 characters (npm run bench:snippets),
 * and the service runs it on a thread of its own
 * (snippet-lane.ts), off the thread that answers requests.
 *
 * A word matches when its Porter2 stem is one of the query's lexemes. The lexemes come from the database
 * (to_tsvector of the query: its stop words and stemming), and the stemmer here is the same algorithm as
 * PostgreSQL's english_stem (Snowball English), so a highlighted word is a word BM25 counted.
 */
import stem from 'wink-porter2-stemmer';
import { memoizeBounded } from '../lib/bounded-memo.js';
import { MAX_WORD_CHARS } from '../lib/words.js';

export interface Snippet {
  text: string;
  /** [start, end) ranges of `text` that match the query. */
  highlights: [number, number][];
}

export interface SnippetOptions {
  /** Words in one passage. */
  fragmentWords: number;
  /** Passages at most (a second one only when it shows query words the first does not). */
  maxFragments: number;
  /** Words of context shown before the first match of a passage. */
  leadWords: number;
}

export const DEFAULT_SNIPPET_OPTIONS: Readonly<SnippetOptions> = Object.freeze({ fragmentWords: 30, maxFragments: 2, leadWords: 6 });

/** Porter2's exceptional forms whose stem is not a prefix of the word minus its last letter (dying → die). */
const IRREGULAR = ['dying', 'lying', 'tying', 'skies'];
/** Longer runs between two words (a rule of dashes, a table border) are cut short. */
const MAX_SEPARATOR_CHARS = 12;
/** A letter or digit outside ASCII (tested one code point at a time). */
const NON_ASCII_WORD_CHAR = /^[\p{L}\p{N}]$/u;
/** Words whose stem is remembered across searches (the vocabulary of results repeats); then it starts over. */
const STEM_CACHE_SIZE = 50_000;

const lowerAscii = (code: number) => (code >= 65 && code <= 90 ? code + 32 : code);
/** ASCII letters and digits, by character code. */
const ASCII_WORD_CHAR = new Uint8Array(128).map((_, c) => ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) ? 1 : 0));

/** Porter2 stem of a lower-case word, remembered. */
const cachedStem = memoizeBounded(stem, STEM_CACHE_SIZE);

/**
 * What a word stemming to `lexeme` starts with. Porter2 only rewrites a word's ending and, where it keeps a
 * rewritten letter, that letter is the stem's last one and an e (hoping → hope, abilities → able), an i
 * (happy → happi) or an l (possibility → possibl): so the word starts with the whole lexeme, or with all of it
 * but such a last letter. A one-letter stem only comes from that one-letter word (Porter2 keeps the part of a
 * word before its first vowel-consonant pair).
 */
function matchPrefix(lexeme: string): { prefix: string; exact: boolean } {
  if (lexeme.length === 1) return { prefix: lexeme, exact: true };
  return { prefix: /[eil]$/.test(lexeme) ? lexeme.slice(0, -1) : lexeme, exact: false };
}

/**
 * Tells which query lexeme (by index) a word stems to, or -1. Stemming costs ~2.5 µs a word, so only a word
 * that can stem to a query lexeme (matchPrefix) is stemmed, and matchAt() rules most words out on their
 * character codes before making a string of them, since it runs for every word of every result.
 */
export class TermMatcher {
  readonly #index = new Map<string, number>();
  readonly #prefixes: { prefix: string; exact: boolean }[];
  /** The prefixes by their first character (ASCII), for matchAt(). */
  readonly #byFirst: ({ prefix: string; exact: boolean }[] | undefined)[] = [];
  readonly #memo = new Map<string, number>();

  constructor(lexemes: readonly string[]) {
    for (const lexeme of lexemes) if (lexeme !== '' && !this.#index.has(lexeme)) this.#index.set(lexeme, this.#index.size);
    this.#prefixes = [...this.#index.keys()].map(matchPrefix).concat(IRREGULAR.map((prefix) => ({ prefix, exact: true })));
    for (const p of this.#prefixes) {
      const first = p.prefix.charCodeAt(0);
      if (first < 128) (this.#byFirst[first] ??= []).push(p);
    }
  }

  get termCount(): number {
    return this.#index.size;
  }

  /** Index of the query lexeme `word` stems to, or -1. */
  match(word: string): number {
    const lower = word.toLowerCase();
    const known = this.#memo.get(lower);
    if (known !== undefined) return known;
    let found = this.#index.get(lower) ?? -1;
    // An overlong "word" is never stemmed: Porter2 is quadratic in its length (lib/words.ts).
    if (found < 0 && lower.length <= MAX_WORD_CHARS && this.#prefixes.some((p) => (p.exact ? lower === p.prefix : lower.startsWith(p.prefix)))) {
      found = this.#index.get(cachedStem(lower)) ?? -1;
    }
    this.#memo.set(lower, found);
    return found;
  }

  /** match() of the word text[start, end), answering -1 at once for an ASCII-led word no prefix begins. */
  matchAt(text: string, start: number, end: number): number {
    const first = text.charCodeAt(start);
    if (first < 128) {
      const candidates = this.#byFirst[lowerAscii(first)];
      if (!candidates || !candidates.some((p) => startsWithFolded(text, start, end, p.prefix, p.exact))) return -1;
    }
    return this.match(text.slice(start, end));
  }
}

/**
 * Whether text[start, end) starts with (or, `exact`, is) `prefix` (lower case), folding ASCII upper case;
 * beyond ASCII it answers maybe (true) and match() decides.
 */
function startsWithFolded(text: string, start: number, end: number, prefix: string, exact: boolean): boolean {
  const length = end - start;
  if (length < prefix.length || (exact && length !== prefix.length)) return false;
  for (let k = 0; k < prefix.length; k++) {
    const code = text.charCodeAt(start + k);
    if (code >= 128) return true;
    if (lowerAscii(code) !== prefix.charCodeAt(k)) return false;
  }
  return true;
}

/**
 * The words of a text as parallel arrays (start, end, query lexeme index or -1), one scratch list grown as needed
 * and reused by every call in this thread: an object a word (~3,000 in a result's 20,000 characters, 150,000 a page
 * of results) was 10–20 % of a page's snippets (50 Debian texts: 7.5–8.1 → 6.6–7.1 CPU ms, the same snippets).
 */
class WordList {
  starts = new Int32Array(4096);
  ends = new Int32Array(4096);
  terms = new Int32Array(4096);
  length = 0;

  push(start: number, end: number, term: number): void {
    if (this.length === this.starts.length) {
      const grow = (a: Int32Array) => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.starts = grow(this.starts);
      this.ends = grow(this.ends);
      this.terms = grow(this.terms);
    }
    this.starts[this.length] = start;
    this.ends[this.length] = end;
    this.terms[this.length] = term;
    this.length++;
  }
}

const scratch = new WordList();

interface Fragment {
  /** Word range [first, end). */
  first: number;
  end: number;
  /** Bit i set: query lexeme i occurs (the first 30 lexemes; beyond that only `matches` counts them). */
  terms: number;
  matches: number;
}

/** Length of the letter or digit at `i` (1, or 2 for a surrogate pair), or 0 for anything else. */
function wordCharLength(text: string, i: number): number {
  const code = text.charCodeAt(i);
  if (code < 128) return ASCII_WORD_CHAR[code]!;
  const point = text.codePointAt(i)!;
  return NON_ASCII_WORD_CHAR.test(String.fromCodePoint(point)) ? (point > 0xffff ? 2 : 1) : 0;
}

/**
 * The words of `text` (runs of letters and digits: the parts PostgreSQL's parser makes words of; a hyphenated
 * word counts as its parts), each with the query lexeme it matches, into the scratch list (valid until the next
 * call). A hand-written scan: it sees every character of every result, where a regular expression's match objects
 * cost milliseconds a search.
 */
function wordsOf(text: string, matcher: TermMatcher): WordList {
  const words = scratch;
  words.length = 0;
  const length = text.length;
  let i = 0;
  while (i < length) {
    let step = wordCharLength(text, i);
    if (step === 0) {
      i++;
      continue;
    }
    const start = i;
    while (step > 0) {
      i += step;
      step = i < length ? wordCharLength(text, i) : 0;
    }
    words.push(start, i, matcher.matchAt(text, start, i));
  }
  return words;
}

const bitOf = (term: number) => (term >= 0 && term < 30 ? 1 << term : 0);

function bitCount(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
}

/** The query lexemes and matches of a range of words [first, end) that only moves forward, counted incrementally. */
class SlidingWindow {
  readonly #counts = new Int32Array(30);
  #first = 0;
  #end = 0;
  #terms = 0;
  #matches = 0;

  constructor(private readonly words: WordList) {}

  /** The fragment of words [first, end), both at or past the previous call's. */
  at(first: number, end: number): Fragment {
    if (first >= this.#end) {
      // Past the window: start an empty one there.
      this.#counts.fill(0);
      this.#terms = 0;
      this.#matches = 0;
      this.#first = this.#end = first;
    }
    for (; this.#first < first; this.#first++) this.#move(this.#first, -1);
    for (; this.#end < end; this.#end++) this.#move(this.#end, 1);
    return { first, end, terms: this.#terms, matches: this.#matches };
  }

  #move(word: number, by: 1 | -1): void {
    const term = this.words.terms[word]!;
    if (term < 0) return;
    this.#matches += by;
    if (term >= 30) return;
    const count = (this.#counts[term]! += by);
    if (count === 0) this.#terms &= ~bitOf(term);
    else if (count === 1 && by === 1) this.#terms |= bitOf(term);
  }
}

/**
 * The passages to show: the window with the most distinct query words (then the most matches, then the
 * earliest), and, if allowed, further non-overlapping windows that add query words the chosen ones lack.
 */
function chooseFragments(words: WordList, options: SnippetOptions): Fragment[] {
  const size = Math.max(1, options.fragmentWords);
  const lastStart = Math.max(0, words.length - size);
  const candidates: Fragment[] = [];
  // One window slid over the words (starts only grow with i): each word enters and leaves it once, where counting
  // every candidate's words again cost a page of common query words ~15 % of its snippets.
  const window = new SlidingWindow(words);
  let previousStart = -1;
  for (let i = 0; i < words.length; i++) {
    if (words.terms[i]! < 0) continue;
    const start = Math.min(lastStart, Math.max(0, i - options.leadWords));
    if (start !== previousStart) candidates.push(window.at(start, Math.min(words.length, start + size)));
    previousStart = start;
  }
  if (candidates.length === 0) return [window.at(0, Math.min(words.length, size))]; // no match: the window never moved

  const chosen: Fragment[] = [];
  let shown = 0;
  while (chosen.length < Math.max(1, options.maxFragments)) {
    let best: Fragment | null = null;
    let bestNew = 0;
    for (const c of candidates) {
      if (chosen.some((f) => c.first < f.end && f.first < c.end)) continue;
      const fresh = bitCount(c.terms & ~shown);
      if (chosen.length > 0 && fresh === 0) continue;
      if (!best || fresh > bestNew || (fresh === bestNew && c.matches > best.matches)) {
        best = c;
        bestNew = fresh;
      }
    }
    if (!best) break;
    chosen.push(best);
    shown |= best.terms;
  }
  return chosen.sort((a, b) => a.first - b.first);
}

/** Punctuation closing the word before it ("alpha)." of "alpha). ===="): at most 3 characters, up to a space. */
function closingPunctuation(between: string): string {
  return /^\S{1,3}(?=\s|$)/.exec(between)?.[0] ?? '';
}

/** The text between two words as shown: whitespace collapsed; a long run (a rule of dashes) cut to its start. */
function separator(between: string): string {
  if (between === ' ') return between;
  const collapsed = between.replace(/\s+/g, ' ');
  return collapsed.length > MAX_SEPARATOR_CHARS ? `${closingPunctuation(collapsed)} ` : collapsed;
}

/**
 * A snippet of `text` for the query `matcher` stands for: up to `maxFragments` passages of `fragmentWords` words
 * joined by " … ", with "… " / " …" where a passage starts or ends inside the text. Text with no query word gives
 * its opening words; text with no words gives an empty snippet.
 */
export function buildSnippet(text: string, matcher: TermMatcher, options: SnippetOptions = DEFAULT_SNIPPET_OPTIONS): Snippet {
  const words = wordsOf(text, matcher);
  if (words.length === 0) return { text: '', highlights: [] };
  const fragments = chooseFragments(words, options);
  let out = '';
  const highlights: [number, number][] = [];
  fragments.forEach((fragment, n) => {
    if (n > 0) out += ' … ';
    else if (fragment.first > 0) out += '… ';
    const { starts, ends, terms } = words;
    for (let i = fragment.first; i < fragment.end; i++) {
      const start = starts[i]!;
      const end = ends[i]!;
      if (i > fragment.first) out += separator(text.slice(ends[i - 1]!, start));
      if (terms[i]! >= 0) highlights.push([out.length, out.length + (end - start)]);
      out += text.slice(start, end);
    }
    out += closingPunctuation(text.slice(ends[fragment.end - 1]!, fragment.end < words.length ? starts[fragment.end]! : text.length));
  });
  if (fragments[fragments.length - 1]!.end < words.length) out += ' …';
  return { text: out, highlights };
}

/** Every word of `text` that matches the query, as [start, end) ranges (a preview's highlights). */
export function highlightWords(text: string, matcher: TermMatcher): [number, number][] {
  if (matcher.termCount === 0) return [];
  const words = wordsOf(text, matcher);
  const out: [number, number][] = [];
  for (let i = 0; i < words.length; i++) if (words.terms[i]! >= 0) out.push([words.starts[i]!, words.ends[i]!]);
  return out;
}
