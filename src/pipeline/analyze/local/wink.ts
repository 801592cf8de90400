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
 * So after each document the tables go back to what the model shipped: every value the document added leaves the
 * hash tables that wink looks values up in, and the prefix, suffix and shape lists are cut back (each document has
 * the whole room of the packed fields: 6,912 new prefixes, 15,796 shapes, more than a 30,000-character text holds
 * in practice). The lexeme list cannot be cut: wink keeps each added word's features in a private array at the
 * word's position, so new words must keep taking new positions; the instance is rebuilt (~70 ms) once
 * REBUILD_AFTER_WORDS have been added (every ~1,000 Debian documents). The cost: each document adds its own unknown
 * words again, 0.6–1.1 CPU ms a file over the whole Debian corpus (the pipeline thread 12.8 / 13.6 against 12.2 /
 * 12.5 ms a file, same-run A/Bs in both orders; docs/benchmarks/corpus.md, stop 47).
 */
import winkNLP from 'wink-nlp';
import type { WinkMethods } from 'wink-nlp';
import model from 'wink-eng-lite-web-model';

/** One of the model's tables of values as wink's cache grows it: value → index (hash), index → value (list). */
interface ValueTable {
  hash: Record<string, number>;
  list: string[];
  /** The next index to give (the list's length). */
  index: number;
}

/** Words added to the lexeme list (they stay there: see above) before the instance is rebuilt. */
export const REBUILD_AFTER_WORDS = 100_000;

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

export class ForgetfulWink {
  readonly nlp: WinkMethods;
  readonly #rebuildAfterWords: number;
  readonly #lexemes: ValueTable;
  /** The tables cut back after each document (prefix, suffix, shape), with their lengths as shipped. */
  readonly #cutBack: Array<{ table: ValueTable; shipped: number }> = [];
  /** The lexeme list's length as shipped, and where the current document's words start in it. */
  readonly #shippedWords: number;
  #documentStart: number;

  constructor(options: ForgetfulWinkOptions = {}) {
    this.#rebuildAfterWords = options.rebuildAfterWords ?? REBUILD_AFTER_WORDS;
    let core: unknown;
    const readCore = model.core as () => unknown;
    this.nlp = winkNLP({ ...model, core: () => (core = readCore.call(model)) }, ['sbd', 'pos']);
    // Measured after loading: loading the automata may itself add values, and those are part of the model.
    const tables = valueTables(core);
    this.#lexemes = tables.get('lexeme')!;
    for (const [name, table] of tables) if (name !== 'lexeme') this.#cutBack.push({ table, shipped: table.list.length });
    this.#shippedWords = this.#lexemes.list.length;
    this.#documentStart = this.#shippedWords;
  }

  /** Whether the lexeme list has grown by the instance's share of words: build another (the old one is garbage). */
  get spent(): boolean {
    return this.#lexemes.list.length - this.#shippedWords > this.#rebuildAfterWords;
  }

  /** Forgets what the document just read added to the tables; call after its last use of wink's output. */
  forgetDocument(): void {
    const lexemes = this.#lexemes;
    for (let i = this.#documentStart; i < lexemes.list.length; i += 1) delete lexemes.hash[lexemes.list[i]!];
    this.#documentStart = lexemes.list.length;
    for (const { table, shipped } of this.#cutBack) {
      for (let i = shipped; i < table.list.length; i += 1) delete table.hash[table.list[i]!];
      table.list.length = shipped;
      table.index = shipped;
    }
  }
}
