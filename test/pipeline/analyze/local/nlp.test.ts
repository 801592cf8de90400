import { expect } from 'chai';
import { proseBlocks } from '../../../../src/pipeline/analyze/local/blocks.js';
import { analyseBlocks, stemWord } from '../../../../src/pipeline/analyze/local/nlp.js';
import { MAX_WORD_CHARS } from '../../../../src/lib/words.js';

const sentencesOf = (text: string): string[] => analyseBlocks(proseBlocks(text)).sentences.map((sentence) => sentence.text);

describe('analyseBlocks', () => {
  it('splits sentences, keeping decimals, abbreviations and figure references inside them', () => {
    expect(
      sentencesOf('Dr. Smith gave 3.5 mg/kg, e.g. to mice. See Fig. 2 for the dose curve. Results held (p < 0.05)! Did they? Yes.'),
    ).to.deep.equal([
      'Dr. Smith gave 3.5 mg/kg, e.g. to mice.',
      'See Fig. 2 for the dose curve.',
      'Results held (p < 0.05)!',
      'Did they?',
      'Yes.',
    ]);
  });

  it('never hands a word longer than MAX_WORD_CHARS to the tokeniser and stemmer (a 50,000-character word)', () => {
    const { tokens } = analyseBlocks(proseBlocks(`Intro sentence here. ${'a'.repeat(50_000)} outro words.`));
    expect(tokens.length).to.be.greaterThan(3);
    expect(Math.max(...tokens.map((t) => t.value.length))).to.be.at.most(MAX_WORD_CHARS);
  });

  it('never lets a sentence cross a block boundary', () => {
    const { sentences } = analyseBlocks([
      { kind: 'heading', text: 'A heading without a full stop', level: 1 },
      { kind: 'paragraph', text: 'the body starts in lower case' },
    ]);
    expect(sentences.map((sentence) => [sentence.blockKind, sentence.text])).to.deep.equal([
      ['heading', 'A heading without a full stop'],
      ['paragraph', 'the body starts in lower case'],
    ]);
  });

  it('links every token to its sentence and marks sentence starts', () => {
    const { tokens, sentences } = analyseBlocks(proseBlocks('Cats sleep. Dogs bark loudly.'));
    expect(sentences).to.have.length(2);
    expect(tokens.filter((token) => token.sentenceStart).map((token) => token.value)).to.deep.equal(['Cats', 'Dogs']);
    for (const token of tokens) expect(sentences[token.sentence]?.text).to.include(token.value);
  });

  it('merges inflections under one key and lemmatises irregular forms', () => {
    const { tokens } = analyseBlocks(proseBlocks('The mice studied studies; a mouse was studying.'));
    const byValue = new Map(tokens.map((token) => [token.value, token]));
    expect(byValue.get('mice')?.lemma).to.equal('mouse');
    expect(byValue.get('mice')?.key).to.equal(byValue.get('mouse')?.key);
    expect(new Set(['studied', 'studies', 'studying'].map((word) => byValue.get(word)?.key)).size).to.equal(1);
  });

  it('keeps hyphenated compounds whole and folds acronym plurals into the acronym', () => {
    const { tokens } = analyseBlocks(proseBlocks('TNF-alpha drives self-renewal of HSCs; each HSC divides. Pages 10-12 - see below.'));
    const values = tokens.map((token) => token.value);
    expect(values).to.include.members(['TNF-alpha', 'self-renewal']);
    expect(values).not.to.include('alpha');
    const hscs = tokens.find((token) => token.value === 'HSCs');
    expect(hscs?.key).to.equal(tokens.find((token) => token.value === 'HSC')?.key);
  });

  it('returns nothing for blank text', () => {
    expect(analyseBlocks([])).to.deep.equal({ tokens: [], sentences: [] });
    expect(analyseBlocks([{ kind: 'paragraph', text: '   ' }])).to.deep.equal({ tokens: [], sentences: [] });
  });
});

describe('stemWord', () => {
  it('is the Porter2 stem', () => {
    expect(stemWord('adjustments')).to.equal('adjust');
    expect(stemWord('running')).to.equal('run');
  });
});
