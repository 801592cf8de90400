/**
 * Tokens and sentences of a list of blocks, from winkNLP (wink-nlp + wink-eng-lite-web-model: tokenizer,
 * sentence boundaries, part of speech, lemma, stop words; pure JS, ~1 ms per SciFact abstract). Sentences never
 * cross a block boundary, and a split after an abbreviation that wink misses ("Fig. 2", "et al. (2001)") is
 * undone. Every token carries a `key` — the Porter2 stem of its lemma — under which inflected forms merge.
 */
import type { ItsFunction, PartOfSpeech } from 'wink-nlp';
import model from 'wink-eng-lite-web-model';
import { capWords } from '../../../lib/words.js';
import { memoizeBounded } from '../../../lib/bounded-memo.js';
import type { Block, BlockKind } from './blocks.js';
import { ForgetfulWink } from './wink.js';

export interface Token {
  value: string;
  lower: string;
  lemma: string;
  /**
   * Porter2 stem of the lemma: "studies", "studied", "study" share one key. Only a word that is not a stop word is
   * ever keyed (keyword candidates, summary vectors); any other token carries its lemma unstemmed, which spares a
   * stemmer lookup for most of a text's tokens.
   */
  key: string;
  pos: PartOfSpeech;
  /** wink token type: 'word', 'number', 'punctuation', 'url', 'email', 'symbol', ... */
  type: string;
  stopWord: boolean;
  sentence: number;
  /** True for the first token of its sentence (where capitals say nothing about proper nouns). */
  sentenceStart: boolean;
}

export interface Sentence {
  text: string;
  block: number;
  blockKind: BlockKind;
  /** Token range [firstToken, endToken) in `tokens`. */
  firstToken: number;
  endToken: number;
}

export interface TextAnalysis {
  tokens: Token[];
  sentences: Sentence[];
}

/** Abbreviations after which wink may end a sentence although the text goes on in lower case or digits. */
const CONTINUING_ABBREVIATIONS = new Set([
  'fig', 'figs', 'eq', 'eqs', 'ref', 'refs', 'no', 'nos', 'vol', 'vols', 'pp', 'p', 'cf', 'vs', 'al', 'approx',
  'ca', 'sec', 'ch', 'chap', 'tab', 'ed', 'eds', 'art', 'para', 'n', 'resp', 'incl', 'esp', 'viz', 'etc', 'e.g',
  'i.e', 'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec',
]);
/** Titles before a name: never the end of a sentence. */
const TITLES = new Set(['dr', 'mr', 'mrs', 'ms', 'prof', 'st', 'mt', 'gen', 'col', 'capt', 'lt', 'sgt', 'rev', 'hon', 'sr', 'jr']);

/** The thread's wink instance, replaced once spent (wink.ts), and how many it has built. */
let reader: ForgetfulWink | undefined;
let winkBuilds = 0;

function getReader(): ForgetfulWink {
  if (!reader || reader.spent) {
    reader = new ForgetfulWink();
    winkBuilds += 1;
  }
  return reader;
}

/** How many winkNLP instances this thread has built (one, then one more every REBUILD_AFTER_WORDS: wink.ts). */
export function winkInstancesBuilt(): number {
  return winkBuilds;
}

/** The model's Porter2 stemmer: a plain function of the word, needing no wink instance. */
let stemmer: ((word: string) => string) | undefined;

/** Porter2 stem of a lower-case word (the same stemmer the tokens' keys use). */
export function stemWord(word: string): string {
  if (!stemmer) {
    const stem: unknown = model.addons.stem;
    if (typeof stem !== 'function') throw new Error('wink-eng-lite-web-model provides no stem addon');
    stemmer = (w) => String(stem(w));
  }
  return stemmer(word);
}

/** What analyseBlocks reads of wink's document, one entry a wink token (sentence starts: token indices). */
interface WinkOutput {
  values: string[];
  types: string[];
  poses: PartOfSpeech[];
  lemmas: string[];
  stops: boolean[];
  sentenceStarts: Set<number>;
}

/** wink's reading of `text`, with whatever it learnt from it forgotten again (wink.ts says why). */
function readWithWink(text: string): WinkOutput {
  const wink = getReader();
  const its = wink.nlp.its;
  try {
    const doc = wink.nlp.readDoc(text);
    const all = doc.tokens();
    return {
      values: all.out() as string[],
      types: all.out(its.type) as string[],
      poses: all.out(its.pos) as PartOfSpeech[],
      // wink's typings declare its.lemma's parameters differently from what out() accepts; the runtime is fine.
      lemmas: all.out(its.lemma as unknown as ItsFunction<string>) as string[],
      stops: all.out(its.stopWordFlag) as boolean[],
      sentenceStarts: new Set((doc.sentences().out(its.span) as unknown as number[][]).map((span) => span[0] ?? 0)),
    };
  } finally {
    wink.forgetDocument();
  }
}

export function analyseBlocks(blocks: Block[]): TextAnalysis {
  const blockStarts: number[] = [];
  let text = '';
  for (const block of blocks) {
    if (text !== '') text += '\n\n';
    blockStarts.push(text.length);
    // wink's tokeniser, lemmatiser and Porter2 stemmer are quadratic in a word's length (lib/words.ts).
    text += capWords(block.text);
  }
  if (text.trim() === '') return { tokens: [], sentences: [] };

  const merged = joinHyphenated(rawTokens(text, blockStarts, readWithWink(text)));
  const tokens = toTokens(merged);
  mergeAbbreviationSplits(tokens, merged);
  return { tokens, sentences: sentencesOf(tokens, merged, blocks, text) };
}

/*
 * analyseBlocks' steps are separate functions, one loop each. As one function, V8 compiled its token loop on the
 * stack (on-stack replacement) and that code gave up at the next loop for lack of type feedback, once per
 * document (--trace-deopt: 142 times over the Debian corpus's fifth, one code object); now each of these functions
 * deoptimizes once or twice while it warms up, as functions do. The analysis costs the same within the noise (the
 * fifth in process: 6.7–7.1 against 6.9–7.2 CPU ms a text).
 */

/** wink's tokens as RawTokens: blanks dropped, character offsets found, blocks and sentence starts marked. */
function rawTokens(text: string, blockStarts: number[], wink: WinkOutput): RawToken[] {
  const { values, types, poses, lemmas, stops, sentenceStarts } = wink;
  // Character offsets by searching forward from a cursor: robust even where wink normalises a token's value.
  const raw: RawToken[] = [];
  let cursor = 0;
  let block = 0;
  let previousWinkIndex = -1;
  for (let i = 0; i < values.length; i += 1) {
    const value = values[i] ?? '';
    const type = types[i] ?? '';
    if (type === 'tabCRLF' || value.trim() === '') continue;
    const found = text.indexOf(value, cursor);
    const start = found >= 0 ? found : cursor;
    cursor = start + (found >= 0 ? value.length : 0);
    while (block + 1 < blockStarts.length && start >= (blockStarts[block + 1] ?? Infinity)) block += 1;
    const previous = raw[raw.length - 1];
    raw.push({
      value,
      type,
      pos: poses[i] ?? 'X',
      lemma: (lemmas[i] ?? value).toLowerCase(),
      stopWord: stops[i] ?? false,
      start,
      end: cursor,
      block,
      sentenceStart: previous === undefined || block !== previous.block || hasWinkStartBetween(sentenceStarts, previousWinkIndex, i),
    });
    previousWinkIndex = i;
  }
  return raw;
}

/** The analysis's tokens, each keyed by the stem of its lemma (its sentence set later, by sentencesOf). */
function toTokens(merged: RawToken[]): Token[] {
  const tokens: Token[] = [];
  for (const token of merged) {
    tokens.push({
      value: token.value,
      lower: token.value.toLowerCase(),
      lemma: token.lemma,
      key: token.type === 'word' && !token.stopWord ? stemCached(token.lemma) : token.lemma,
      pos: token.pos,
      type: token.type,
      stopWord: token.stopWord,
      sentence: -1,
      sentenceStart: token.sentenceStart,
    });
  }
  return tokens;
}

/** Sentences from the tokens' sentence starts (never across blocks); sets each token's sentence. */
function sentencesOf(tokens: Token[], merged: RawToken[], blocks: Block[], text: string): Sentence[] {
  const sentences: Sentence[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    if (token.sentenceStart || sentences.length === 0) {
      const blockIndex = merged[i]!.block;
      sentences.push({ text: '', block: blockIndex, blockKind: blocks[blockIndex]?.kind ?? 'paragraph', firstToken: i, endToken: i });
    }
    const sentence = sentences[sentences.length - 1]!;
    sentence.endToken = i + 1;
    token.sentence = sentences.length - 1;
  }
  for (const sentence of sentences) {
    const from = merged[sentence.firstToken]?.start ?? 0;
    const to = merged[sentence.endToken - 1]?.end ?? 0;
    sentence.text = text.slice(from, to).replace(/\s+/g, ' ').trim();
  }
  return sentences;
}

interface RawToken {
  value: string;
  type: string;
  pos: PartOfSpeech;
  lemma: string;
  stopWord: boolean;
  start: number;
  end: number;
  block: number;
  sentenceStart: boolean;
}

/**
 * wink splits some hyphenated compounds ("self-renewal", "TNF-alpha") and keeps others ("IL-6"); rejoin
 * word-hyphen-word runs written without spaces so that a compound is one term. Acronym plurals ("HSCs") take
 * the acronym as lemma so they merge with the singular.
 */
function joinHyphenated(tokens: RawToken[]): RawToken[] {
  const out: RawToken[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    let token = tokens[i];
    if (!token) continue;
    while (token.type === 'word') {
      const hyphen = tokens[i + 1];
      const next = tokens[i + 2];
      if (!hyphen || !next || hyphen.value !== '-' || hyphen.start !== token.end || next.start !== hyphen.end) break;
      if (next.type !== 'word' && next.type !== 'number') break;
      if (next.sentenceStart || hyphen.sentenceStart) break;
      token = {
        ...next,
        value: `${token.value}-${next.value}`,
        lemma: `${token.value.toLowerCase()}-${next.lemma}`,
        type: 'word',
        stopWord: false,
        start: token.start,
        sentenceStart: token.sentenceStart,
      };
      i += 2;
    }
    if (/^\p{Lu}[\p{Lu}\d-]*\p{Lu}s$/u.test(token.value)) token = { ...token, lemma: token.value.slice(0, -1).toLowerCase() };
    out.push(token);
  }
  return out;
}

const STEM_CACHE_LIMIT = 200_000;
/** Stemming is the costliest per-token step and words repeat across files: cache per thread, bounded. */
const stemCached = memoizeBounded(stemWord, STEM_CACHE_LIMIT);

function hasWinkStartBetween(starts: Set<number>, after: number, upTo: number): boolean {
  for (let i = after + 1; i <= upTo; i += 1) if (starts.has(i)) return true;
  return false;
}

/** Rejoins "See Fig." + "2 shows…" and "Dr." + "Smith…" that the sentence splitter cut apart. */
function mergeAbbreviationSplits(tokens: Token[], merged: RawToken[]): void {
  for (let i = 2; i < tokens.length; i += 1) {
    const token = tokens[i];
    const dot = tokens[i - 1];
    const word = tokens[i - 2];
    if (!token?.sentenceStart || !dot || !word || dot.value !== '.' || merged[i]?.block !== merged[i - 1]?.block) continue;
    const abbreviation = word.lower.replace(/\.$/, '');
    const continues = /^[\p{Ll}\d(]/u.test(token.value);
    if (TITLES.has(abbreviation) || (continues && CONTINUING_ABBREVIATIONS.has(abbreviation))) token.sentenceStart = false;
  }
}
