/**
 * BERT WordPiece tokenizer from a model's `tokenizer.json` (or, for older folders, its `vocab.txt`), as
 * sentence-transformers' BERT models configure it:
 * BertNormalizer (clean text, pad CJK characters, strip accents, lowercase), BertPreTokenizer (split on
 * whitespace and punctuation), WordPiece with `##` continuations and [UNK] for words over 100 characters or
 * with no segmentation.
 *
 * Pre-tokenisation runs on the original text so every word keeps its character offsets there; each word is
 * then normalised on its own, as the reference Python BasicTokenizer does. Normalising word by word gives the
 * same words as normalising first, because every step is per character except NFD/lowercasing, which never
 * create whitespace or (in practice) punctuation.
 */
import { readFileSync } from 'node:fs';

export interface WordPieceOptions {
  lowercase?: boolean; // default true (uncased models)
  stripAccents?: boolean; // default: same as lowercase (HF's reading of strip_accents: null)
  maxInputCharsPerWord?: number; // default 100
  unkToken?: string;
  clsToken?: string;
  sepToken?: string;
  padToken?: string;
  /** Prefix of a word's continuation pieces (default '##'). */
  continuingPrefix?: string;
}

/** A pre-tokenised word: its span in the original text and its WordPiece ids (one [UNK] if unknown). */
export interface TokenizedWord {
  start: number;
  end: number;
  ids: number[];
}

const CONTROL = /\p{C}/u;
const WHITESPACE = /\s/u;
const UNICODE_PUNCT = /\p{P}/u;
const COMBINING_MARK = /\p{Mn}/gu;
const CAPITAL_SIGMA = /Σ/g;

function isControl(c: string): boolean {
  // \t \n \r count as whitespace; NUL and U+FFFD are dropped like other control characters.
  if (c === '\t' || c === '\n' || c === '\r') return false;
  return c === '\ufffd' || CONTROL.test(c);
}

function isPunctuation(c: string): boolean {
  const cp = c.codePointAt(0) ?? 0;
  // BERT treats every non-alphanumeric ASCII symbol as punctuation ($, +, <, ^, `, |, ~ are not \p{P}).
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)) {
    return true;
  }
  return UNICODE_PUNCT.test(c);
}

/** The CJK Unified Ideographs blocks BERT splits into single-character words (not Hangul or kana). */
function isCjk(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

/** The parts of a Hugging Face tokenizer.json this tokenizer reads. */
interface TokenizerJson {
  model?: {
    type?: string;
    vocab?: Record<string, number>;
    unk_token?: string;
    continuing_subword_prefix?: string;
    max_input_chars_per_word?: number;
  };
  normalizer?: { type?: string; lowercase?: boolean; strip_accents?: boolean | null } | null;
  pre_tokenizer?: { type?: string } | null;
  post_processor?: {
    single?: { SpecialToken?: { id: string } }[];
    special_tokens?: Record<string, { tokens?: string[] }>;
  } | null;
  padding?: { pad_token?: string } | null;
  added_tokens?: { id: number; content: string }[];
}

export class WordPieceTokenizer {
  readonly vocabSize: number;
  readonly unkId: number;
  readonly clsId: number;
  readonly sepId: number;
  readonly padId: number;
  private readonly vocab = new Map<string, number>();
  private readonly lowercase: boolean;
  private readonly stripAccents: boolean;
  private readonly maxChars: number;
  private readonly prefix: string;

  constructor(tokens: readonly string[], options: WordPieceOptions = {}) {
    tokens.forEach((t, i) => {
      if (!this.vocab.has(t)) this.vocab.set(t, i);
    });
    this.vocabSize = tokens.length;
    this.lowercase = options.lowercase ?? true;
    this.stripAccents = options.stripAccents ?? this.lowercase;
    this.maxChars = options.maxInputCharsPerWord ?? 100;
    this.prefix = options.continuingPrefix ?? '##';
    this.unkId = this.special(options.unkToken ?? '[UNK]');
    this.clsId = this.special(options.clsToken ?? '[CLS]');
    this.sepId = this.special(options.sepToken ?? '[SEP]');
    this.padId = this.special(options.padToken ?? '[PAD]');
  }

  /** Reads `vocab.txt`: one token per line, the line number is the id. */
  static fromVocabFile(file: string, options: WordPieceOptions = {}): WordPieceTokenizer {
    const lines = readFileSync(file, 'utf8').split(/\r?\n/);
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return new WordPieceTokenizer(lines, options);
  }

  /**
   * Reads a Hugging Face `tokenizer.json` of the BERT family: a WordPiece model with BertNormalizer and
   * BertPreTokenizer, and `[CLS] A [SEP]` around a text. Anything else (BPE, Unigram, other normalisers) is
   * refused with a message naming what was found, rather than tokenised wrongly.
   */
  static fromTokenizerJson(file: string): WordPieceTokenizer {
    const json = JSON.parse(readFileSync(file, 'utf8')) as TokenizerJson;
    const what = (part: { type?: unknown } | null | undefined): string => String(part?.type ?? 'none');
    const model = json.model;
    if (model?.type !== 'WordPiece' || typeof model.vocab !== 'object' || model.vocab === null) {
      throw new Error(`${file}: only WordPiece tokenizers are supported (model type ${what(model)})`);
    }
    const normalizer = json.normalizer;
    if (normalizer?.type !== 'BertNormalizer') {
      throw new Error(`${file}: only the BertNormalizer is supported (normalizer ${what(normalizer)})`);
    }
    if (json.pre_tokenizer?.type !== 'BertPreTokenizer') {
      throw new Error(`${file}: only the BertPreTokenizer is supported (pre_tokenizer ${what(json.pre_tokenizer)})`);
    }
    const tokens: string[] = [];
    for (const [token, id] of Object.entries(model.vocab)) tokens[id] = token;
    for (const added of json.added_tokens ?? []) tokens[added.id] ??= added.content;
    const special = json.post_processor?.special_tokens ?? {};
    const single = json.post_processor?.single ?? [];
    const first = single[0]?.SpecialToken?.id;
    const last = single[single.length - 1]?.SpecialToken?.id;
    const lowercase = normalizer.lowercase ?? true;
    return new WordPieceTokenizer(tokens, {
      lowercase,
      stripAccents: normalizer.strip_accents ?? lowercase,
      maxInputCharsPerWord: model.max_input_chars_per_word ?? 100,
      continuingPrefix: model.continuing_subword_prefix ?? '##',
      unkToken: model.unk_token ?? '[UNK]',
      clsToken: special[first ?? '']?.tokens?.[0] ?? first ?? '[CLS]',
      sepToken: special[last ?? '']?.tokens?.[0] ?? last ?? '[SEP]',
      padToken: json.padding?.pad_token ?? '[PAD]',
    });
  }

  private special(token: string): number {
    const id = this.vocab.get(token);
    if (id === undefined) throw new Error(`vocabulary has no ${token} token`);
    return id;
  }

  /** Words of the text with their offsets and WordPiece ids, in order. */
  words(text: string): TokenizedWord[] {
    const out: TokenizedWord[] = [];
    let buf = '';
    let start = -1;
    let end = -1;
    const flush = (): void => {
      if (start >= 0) {
        const ids = this.wordPiece(this.normalizeWord(buf));
        if (ids.length > 0) out.push({ start, end, ids });
      }
      buf = '';
      start = -1;
    };
    let i = 0;
    for (const c of text) {
      const at = i;
      i += c.length;
      if (c === '\0' || isControl(c)) continue; // dropped without splitting the word (clean_text)
      if (WHITESPACE.test(c)) {
        flush();
        continue;
      }
      if (isCjk(c.codePointAt(0) ?? 0) || isPunctuation(c)) {
        flush();
        buf = c;
        start = at;
        end = i;
        flush();
        continue;
      }
      if (start < 0) start = at;
      buf += c;
      end = i;
    }
    flush();
    return out;
  }

  /** WordPiece ids without special tokens. */
  tokenize(text: string): number[] {
    return this.words(text).flatMap((w) => w.ids);
  }

  /** `[CLS] text [SEP]`, truncated to at most maxLength ids in all. */
  encode(text: string, maxLength = 512): number[] {
    const ids = this.tokenize(text).slice(0, Math.max(0, maxLength - 2));
    return [this.clsId, ...ids, this.sepId];
  }

  private normalizeWord(word: string): string {
    let w = word;
    // Strip accents: decompose, then drop nonspacing marks.
    if (this.stripAccents) w = w.normalize('NFD').replace(COMBINING_MARK, '');
    // Lowercase char by char like the reference: JS would turn a word-final capital sigma into 'ς'.
    if (this.lowercase) w = w.replace(CAPITAL_SIGMA, 'σ').toLowerCase();
    return w;
  }

  /** Greedy longest-match-first segmentation; the whole word becomes [UNK] if any part has no match. */
  private wordPiece(word: string): number[] {
    if (word === '') return [];
    const chars = Array.from(word);
    if (chars.length > this.maxChars) return [this.unkId];
    const ids: number[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let found: number | undefined;
      while (start < end) {
        const piece = (start > 0 ? this.prefix : '') + chars.slice(start, end).join('');
        found = this.vocab.get(piece);
        if (found !== undefined) break;
        end--;
      }
      if (found === undefined) return [this.unkId];
      ids.push(found);
      start = end;
    }
    return ids;
  }
}
