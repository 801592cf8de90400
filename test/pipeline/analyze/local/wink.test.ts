import { expect } from 'chai';
import { analyzeLocally } from '../../../../src/pipeline/analyze/local/index.js';
import { analyseBlocks, winkInstancesBuilt } from '../../../../src/pipeline/analyze/local/nlp.js';
import { ForgetfulWink } from '../../../../src/pipeline/analyze/local/wink.js';
import { docFrom } from '../helpers.js';

const tokensOf = (text: string): string[] => analyseBlocks([{ kind: 'paragraph', text }]).tokens.map((token) => token.value);

/** Made-up words no model knows, `count` of them from `from`, each distinct (and distinct in its lower case). */
const madeUpWords = (from: number, count: number): string[] =>
  Array.from({ length: count }, (_, i) => `zq${(from + i).toString(36)}vek`);

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

  it('puts the tables back as shipped after each document and is spent once it has added its share of words', () => {
    const wink = new ForgetfulWink({ rebuildAfterWords: 1_000 });
    const read = (words: string[]) => {
      const out = wink.nlp.readDoc(`${words.join(' ')}.`).tokens().out(wink.nlp.its.type) as string[];
      wink.forgetDocument();
      return out;
    };
    const words = madeUpWords(0, 400);
    expect(read(words).filter((type) => type === 'word')).to.have.length(400);
    expect(wink.spent).to.equal(false);
    // Read again, they are added again (new positions): the lexeme list grows, the look-up tables do not.
    read(words);
    expect(wink.spent).to.equal(false);
    read(madeUpWords(400, 400));
    expect(wink.spent).to.equal(true);
    // A spent instance still reads correctly; the caller builds the next one at its next document.
    expect(read(['the', 'table'])).to.deep.equal(['word', 'word', 'punctuation']);
  });

  it('keeps analysing after the thread has read enough words to build a new instance', function () {
    this.timeout(60_000);
    const text = "The table's row type. Indexes have none.";
    const first = tokensOf(text);
    const built = winkInstancesBuilt();
    // 120,000 distinct made-up words: past REBUILD_AFTER_WORDS, so analyseBlocks builds a new instance on the way.
    for (let from = 0; from < 120_000; from += 10_000) tokensOf(madeUpWords(from, 10_000).join(' '));
    expect(winkInstancesBuilt()).to.equal(built + 1);
    expect(tokensOf(text)).to.deep.equal(first);
  });
});
