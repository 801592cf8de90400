/**
 * The thread's winkNLP instance, made to read every document as if it were the first it ever read.
 *
 * winkNLP learns as it reads: each word missing from its model (and its lower-case form, prefix, suffix and shape
 * when those are new too) is added to the model's tables for good (wink-nlp 2.x, `cache.js`). Left alone that
 * 1. made a file's analysis depend on the files its thread had read before: the tokenizer keeps a word whole once
 *    the tables hold it whole, so "table's" became one token after some other page had taught it and two ("table",
 *    "'s") before, and two of the 1,025 Debian documents of the corpus's fifth got another summary when read a
 *    second time;
 * 2. grew a pipeline thread's heap with every new word of a bulk run, for as long as the thread lived (94,000
 *    words over the corpus's 5,118 documents; a home directory's hundreds of thousands of files would hold
 *    millions);
 * 3. would overflow the packed fields of new words' features: a prefix index has 13 bits and a shape index 14
 *    (8,191 and 16,383 values; the model ships 1,279 and 587, the corpus added 2,274 and 5,069), and wink does not
 *    check (its limit check is commented out), so a large multilingual tree would set other features' bits (the
 *    abbreviation flag that sentence boundaries read, the lexeme's cluster) for every word added after that.
 *
 * So after each document every word it added leaves the hash table wink looks words up in, but for words of letters
 * only (KEPT_WORD), which read the same either way. The lexeme list itself cannot be cut back (wink keeps an added
 * word's features in a private array at the word's position), so a forgotten word takes a new position when it comes
 * again, and the instance is rebuilt (~70 ms) once REBUILD_AFTER_WORDS have been added. The prefix, suffix and shape
 * tables keep what they learn (wink resolves their indices to the values, so the indices' order does not matter);
 * the instance is rebuilt too once one has used half the room of its packed field, leaving the other half for the
 * next document (3,456 prefixes, 7,898 shapes; the Debian corpus's largest document added 280 and 392). Over the
 * whole Debian corpus, read in order and shuffled twice over, every title, summary and keyword list is the same as
 * with every table put back as shipped after each document. What it costs and what it saves:
 * docs/benchmarks/corpus.md, stop 47.
 *
 * Every instance is given the custom-entity model that the thread's first one read (`cerMetaModel`, below), never
 * the model's own loader again: wink-eng-lite-web-model 1.8's `metaCER()` ends in `machines = JSON.stringify(machines)`,
 * reassigning its module's variable, so each call returns the previous answer escaped once more, its backslashes
 * doubled. A thread that built its ~20th instance held a string of hundreds of megabytes and died at its 1,024 MB
 * heap limit: two files of /usr/share's 50,649 ended `out_of_memory` and the service peaked at 1.5 GB
 * (docs/benchmarks/corpus.md, stop 53).
 */
import winkNLP from 'wink-nlp';
import type { WinkMethods } from 'wink-nlp';
import model from 'wink-eng-lite-web-model';

/**
 * The model's custom-entity meta model as its first call gives it (a JSON text of the automata, which wink
 * compiles only when asked to learn custom entities): read once for the thread, then handed to every instance.
 */
let cerMeta: unknown;
export function cerMetaModel(): unknown {
  cerMeta ??= (model.metaCER as () => unknown).call(model);
  return cerMeta;
}

/** One of the model's tables of values as wink's cache grows it: value → index (hash), index → value (list). */
interface ValueTable {
  hash: Record<string, number>;
  list: string[];
  /** The next index to give (the list's length). */
  index: number;
  /** The largest index the feature's packed field holds (feature tables; the lexemes have none). */
  maxIndex?: number;
}

/** Words added to the lexeme list (they stay there: see above) before the instance is rebuilt. */
export const REBUILD_AFTER_WORDS = 100_000;

/**
 * The recursive tokenizer's patterns of every category but "word", anchored to a whole word: a word one of them
 * matches may be learnt with that category (GBP in "12GBP" is a currency), and is then never kept.
 */
function nonWordPatterns(core: unknown): RegExp[] {
  const model = core as { trex?: { rtc?: unknown }; tcat?: { hash?: Record<string, number> } } | undefined;
  const rtc = model?.trex?.rtc;
  const word = model?.tcat?.hash?.word;
  const shaped = Array.isArray(rtc) && typeof word === 'number' &&
    rtc.every((entry) => Array.isArray(entry) && typeof entry[0] === 'string' && typeof entry[1] === 'string' && typeof entry[2] === 'number');
  if (!shaped) throw new Error("wink-nlp's model has no token patterns where this version of filesift expects them");
  return (rtc as Array<[string, string, number]>)
    .filter(([, , category]) => category !== word)
    .map(([source, flags]) => new RegExp(`^(?:${source})$`, flags.replace('g', '')));
}

function isValueTable(table: unknown): table is ValueTable {
  if (typeof table !== 'object' || table === null) return false;
  const t = table as Partial<ValueTable>;
  return typeof t.hash === 'object' && t.hash !== null && Array.isArray(t.list) && typeof t.index === 'number';
}

/** The core model's value tables, by name: what wink's cache writes into. */
function valueTables(core: unknown): Map<string, ValueTable> {
  const features = (core as { features?: Record<string, unknown> } | undefined)?.features;
  const tables = new Map<string, ValueTable>();
  for (const [name, table] of Object.entries(features ?? {})) if (isValueTable(table)) tables.set(name, table);
  // A wink-nlp whose model no longer looks like this would learn across documents again: fail loudly instead.
  for (const name of ['lexeme', 'prefix', 'suffix', 'shape']) {
    if (!tables.has(name)) throw new Error(`wink-nlp's model has no ${name} table where this version of filesift expects one`);
  }
  return tables;
}

export interface ForgetfulWinkOptions {
  /** Test seam: words added to the lexeme list before the instance is spent (default REBUILD_AFTER_WORDS). */
  rebuildAfterWords?: number;
}

/**
 * Words kept from one document to the next: letters only, of the letters the model's "word" category detects (its
 * first token-category pattern: a-z in either case and Latin-1's letters; combining marks and other scripts are
 * left out). wink reads such a word the same way whether it knows it or not: unknown, every path of its tokenizer
 * (a unit alone, with punctuation before or after it, or in the recursive tokenizer) detects the category "word" or
 * finds nothing to split and adds it whole, as a known one is; and its features come from its letters alone. Keeping
 * them spares re-adding a tree's recurring names ("gnuplot", "PostgreSQL", "Debian") in every document: ~4–7 % of
 * the analysis of the Debian corpus, whose 5,410 analyses are byte for byte those of a fresh instance per document, in
 * order and shuffled (docs/benchmarks/corpus.md, stop 58). Anything else (an apostrophe, a period, a hyphen, a
 * digit, another script) is forgotten: words with digits kept changed 6 of 1,803 summaries. So is a word that one of
 * the recursive tokenizer's other patterns matches whole (its currency codes "USD", "AUD", "INR", "GBP"): learnt
 * there as a currency, it would be read as one where an unknown one reads as a word (nonWordPatterns, below).
 */
const KEPT_WORD = /^[a-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u00FF]+$/i;

export class ForgetfulWink {
  readonly nlp: WinkMethods;
  readonly #rebuildAfterWords: number;
  readonly #lexemes: ValueTable;
  /** The feature tables (prefix, suffix, shape), with their lengths as shipped and the largest index each may give. */
  readonly #features: Array<{ table: ValueTable; shipped: number; maxIndex: number }> = [];
  /** Whole-word patterns of the tokenizer's other categories: a word one of them matches is never kept. */
  readonly #nonWord: RegExp[];
  /** The lexeme list's length as shipped, and where the current document's words start in it. */
  readonly #shippedWords: number;
  #documentStart: number;

  constructor(options: ForgetfulWinkOptions = {}) {
    this.#rebuildAfterWords = options.rebuildAfterWords ?? REBUILD_AFTER_WORDS;
    let core: unknown;
    const readCore = model.core as () => unknown;
    this.nlp = winkNLP({ ...model, core: () => (core = readCore.call(model)), metaCER: cerMetaModel }, ['sbd', 'pos']);
    // Measured after loading: loading the automata may itself add values, and those are part of the model.
    const tables = valueTables(core);
    this.#lexemes = tables.get('lexeme')!;
    for (const [name, table] of tables) {
      if (name === 'lexeme') continue;
      const { maxIndex } = table;
      if (typeof maxIndex !== 'number') throw new Error(`wink-nlp's ${name} table has no maxIndex where filesift expects one`);
      this.#features.push({ table, shipped: table.list.length, maxIndex });
    }
    this.#nonWord = nonWordPatterns(core);
    this.#shippedWords = this.#lexemes.list.length;
    this.#documentStart = this.#shippedWords;
  }

  /**
   * Whether to build another instance (the old one is garbage): the lexeme list has grown by the instance's share
   * of words, or a feature table has used half the room of its packed field (the other half is the next
   * document's: the Debian corpus's largest document added 280 prefixes and 392 shapes).
   */
  get spent(): boolean {
    if (this.#lexemes.list.length - this.#shippedWords > this.#rebuildAfterWords) return true;
    return this.#features.some(({ table, shipped, maxIndex }) => 2 * (table.list.length - shipped) > maxIndex - shipped);
  }

  /** Forgets the words the document just read added (but KEPT_WORD ones); call after its last use of wink's output. */
  forgetDocument(): void {
    const { hash, list } = this.#lexemes;
    for (let i = this.#documentStart; i < list.length; i += 1) {
      const word = list[i]!;
      if (!KEPT_WORD.test(word) || this.#nonWord.some((pattern) => pattern.test(word))) delete hash[word];
    }
    this.#documentStart = list.length;
  }
}
