import { expect } from 'chai';
import { analyzeLocally } from '../../../../src/pipeline/analyze/local/index.js';
import { analyseBlocks, winkInstancesBuilt } from '../../../../src/pipeline/analyze/local/nlp.js';
import model from 'wink-eng-lite-web-model';
import { cerMetaModel, ForgetfulWink } from '../../../../src/pipeline/analyze/local/wink.js';
import { docFrom } from '../helpers.js';

const tokensOf = (text: string): string[] => analyseBlocks([{ kind: 'paragraph', text }]).tokens.map((token) => token.value);

/** Letters for a number (base 26, a–z): made-up words stay plain lower-case ASCII. */
const letters = (n: number): string => {
  let word = '';
  do {
    word = String.fromCharCode(97 + (n % 26)) + word;
    n = Math.floor(n / 26);
  } while (n > 0);
  return word;
};

/** Made-up words no model knows, `count` of them from `from`, each distinct, plain lower-case ASCII letters. */
const madeUpWords = (from: number, count: number): string[] => Array.from({ length: count }, (_, i) => `zq${letters(from + i)}vek`);

describe('ForgetfulWink (wink reads every document as its first)', () => {
  it('tokenizes a document the same whatever the thread read before it', () => {
    const probe = "The type of this table's row.";
    const before = tokensOf(probe);
    // wink 2.4 left alone learns "table's" whole from this sentence and keeps it whole in every later text.
    tokensOf("It is the table's.");
    expect(tokensOf(probe)).to.deep.equal(before);
    expect(before).to.include.members(['table', "'s"]);
  });

  it('gives a file the same summary and keywords after other files as first', () => {
    const text = [
      "The kernel keeps the relation's owner. The relation's lock is held by the relation's writer.",
      "The relation's pages are read by the planner. The planner reads the relation's statistics and the relation's size.",
    ].join('\n\n');
    const first = analyzeLocally(docFrom('kernel.txt', text), { maxInputChars: 30_000 });
    expect(first.keywords).to.include('relation');
    // Left alone, wink learnt "relation's" whole here, and the file above lost its keyword "relation" and its summary.
    analyzeLocally(docFrom('other.txt', "It is the relation's."), { maxInputChars: 30_000 });
    expect(analyzeLocally(docFrom('kernel.txt', text), { maxInputChars: 30_000 })).to.deep.equal(first);
  });

  it('forgets the words a document added, but words of letters only, and is spent once it has added its share', () => {
    const wink = new ForgetfulWink({ rebuildAfterWords: 1_000 });
    const read = (words: string[]) => {
      const out = wink.nlp.readDoc(`${words.join(' ')}.`).tokens().out(wink.nlp.its.type) as string[];
      wink.forgetDocument();
      return out;
    };
    // Plain lower-case words are kept: read three times, they are added once (400 of the 1,000).
    const plain = madeUpWords(0, 400);
    for (let round = 0; round < 3; round += 1) expect(read(plain).filter((type) => type === 'word')).to.have.length(400);
    // So are capitalised ones and Latin-1 letters: each added once with its lower-case form (200 more, 600 in all;
    // forgotten, three reads would add 600 and the first read of the numbered words below would spend the instance).
    const named = madeUpWords(400, 100).map((word, i) => (i % 2 === 0 ? word[0]!.toUpperCase() + word.slice(1) : `${word}é`.replace('zq', 'Zq')));
    for (let round = 0; round < 3; round += 1) expect(read(named).filter((type) => type === 'word')).to.have.length(100);
    expect(wink.spent).to.equal(false);
    // Words with a digit are forgotten: read again, they are added again (900, then 1,200).
    const numbered = Array.from({ length: 300 }, (_, i) => `q${i}x7`);
    read(numbered);
    expect(wink.spent).to.equal(false);
    read(numbered);
    expect(wink.spent).to.equal(true);
    // A spent instance still reads correctly; the caller builds the next one at its next document.
    expect(read(['the', 'table'])).to.deep.equal(['word', 'word', 'punctuation']);
  });

  it('forgets the words of other scripts than the model\'s "word" letters (Cyrillic here)', () => {
    const wink = new ForgetfulWink({ rebuildAfterWords: 500 });
    // Made-up Cyrillic words: letters of U+0430–U+044F for a–z.
    const cyrillic = madeUpWords(0, 300).map((word) => [...word].map((c) => String.fromCharCode(0x430 + c.charCodeAt(0) - 97)).join(''));
    wink.nlp.readDoc(`${cyrillic.join(' ')}.`).tokens().out();
    wink.forgetDocument();
    expect(wink.spent).to.equal(false);
    wink.nlp.readDoc(`${cyrillic.join(' ')}.`).tokens().out();
    wink.forgetDocument();
    expect(wink.spent).to.equal(true);
  });

  it('never keeps a word the tokenizer may learn with another category (a currency code)', () => {
    const read = (wink: ForgetfulWink, text: string) => {
      const doc = wink.nlp.readDoc(text);
      const out = doc.tokens().out(wink.nlp.its.type) as string[];
      wink.forgetDocument();
      return out;
    };
    const first = read(new ForgetfulWink(), 'GBP costs more.');
    expect(first).to.deep.equal(['word', 'word', 'word', 'punctuation']);
    // "12GBP" goes through the recursive tokenizer, whose currency pattern adds "GBP" as a currency: kept, a later
    // "GBP" would read as one where a fresh instance reads a word.
    const used = new ForgetfulWink();
    read(used, 'Prices in 12GBP today.');
    expect(read(used, 'GBP costs more.')).to.deep.equal(first);
  });

  it('is spent before a feature table could overflow its packed field (new prefixes past half its room)', () => {
    const wink = new ForgetfulWink();
    // Two-syllable Hangul words: each a new prefix (2 characters) and a new shape (the word itself).
    const hangul = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => String.fromCharCode(0xac00 + from + i, 0xac00 + ((from + i) * 7919 + 13) % 11172)).join(' ');
    wink.nlp.readDoc(hangul(0, 2_000)).tokens().out();
    wink.forgetDocument();
    expect(wink.spent).to.equal(false);
    // 4,000 new prefixes: past half of the 6,912 the 13-bit field leaves beyond the model's own.
    wink.nlp.readDoc(hangul(2_000, 2_000)).tokens().out();
    wink.forgetDocument();
    expect(wink.spent).to.equal(true);
  });

  it("reads the model's custom-entity automata once for the thread, not once an instance (its loader escapes them again at every call)", () => {
    const loader = model.metaCER as () => unknown;
    let calls = 0;
    // wink-eng-lite-web-model 1.8's loader returns `machines = JSON.stringify(machines)`: each call the answer before,
    // escaped once more. Built with it every time, the ~20th instance of a thread held hundreds of megabytes.
    const counting = function (this: unknown) {
      calls += 1;
      return loader.call(this);
    };
    Object.assign(model, { metaCER: counting });
    try {
      for (let i = 0; i < 3; i += 1) new ForgetfulWink();
    } finally {
      Object.assign(model, { metaCER: loader });
    }
    // At most the thread's first instance asks (earlier tests of this thread may have built it).
    expect(calls).to.be.at.most(1);
    // What every instance gets is that first answer: a JSON text of the automata, not a JSON text of one.
    const { machines } = cerMetaModel() as { machines: string };
    expect(machines).to.be.a('string');
    expect(JSON.parse(machines)).to.not.be.a('string');
  });

  it('keeps analysing after the thread has read enough words to build a new instance', function () {
    this.timeout(60_000);
    const text = "The table's row type. Indexes have none.";
    const first = tokensOf(text);
    const built = winkInstancesBuilt();
    // 120,000 distinct made-up words: past REBUILD_AFTER_WORDS, so analyseBlocks builds a new instance on the way.
    for (let from = 0; from < 120_000; from += 10_000) tokensOf(madeUpWords(from, 10_000).join(' '));
    // One more, or two if earlier tests of this thread had already added words to the instance in use.
    expect(winkInstancesBuilt()).to.be.within(built + 1, built + 2);
    expect(tokensOf(text)).to.deep.equal(first);
  });
});
