import { expect } from 'chai';
import { proseBlocks } from '../../../../src/pipeline/analyze/local/blocks.js';
import { extractKeywords } from '../../../../src/pipeline/analyze/local/keywords.js';
import { analyseBlocks } from '../../../../src/pipeline/analyze/local/nlp.js';

function keywordsOf(text: string, options: Parameters<typeof extractKeywords>[2] = {}): string[] {
  const { tokens, sentences } = analyseBlocks(proseBlocks(text));
  return extractKeywords(tokens, sentences, options);
}

const PHOTOSYNTHESIS = `Photosynthesis in chloroplasts

Photosynthesis converts light energy into chemical energy inside chloroplasts. The thylakoid membranes of a
chloroplast hold chlorophyll, which absorbs red and blue light. In the light reactions, water is split and
oxygen is released, while ATP and NADPH are made. The Calvin cycle then fixes carbon dioxide into sugars,
using the ATP and NADPH from the thylakoid reactions. Plants with more chlorophyll per chloroplast can use dim
light better, which is why shade leaves look darker. People have studied photosynthesis for a very long time,
and people still find new things about it every year.`;

describe('extractKeywords', () => {
  it('finds the domain terms of a document and no stop words', () => {
    const keywords = keywordsOf(PHOTOSYNTHESIS);
    expect(keywords.length).to.be.within(5, 10);
    expect(keywords).to.include.members(['photosynthesis', 'chloroplast', 'thylakoid', 'chlorophyll']);
    for (const word of ['the', 'and', 'which', 'is', 'of', 'in', 'people', 'things', 'time', 'year']) {
      expect(keywords).not.to.include(word);
    }
  });

  it('ranks specific terms above frequent everyday words', () => {
    const keywords = keywordsOf(PHOTOSYNTHESIS);
    expect(keywords.indexOf('thylakoid')).to.be.below(keywords.indexOf('light') === -1 ? Infinity : keywords.indexOf('light'));
    expect(keywords.slice(0, 4)).to.include.members(['photosynthesis', 'chloroplast']);
  });

  it('merges inflections under the most frequent spelling', () => {
    const keywords = keywordsOf(
      'Enzymes speed reactions. An enzyme binds its substrate. Each enzyme has a site; enzymes are proteins. Enzyme kinetics.',
    );
    expect(keywords.filter((keyword) => keyword.startsWith('enzyme'))).to.deep.equal(['enzyme']);
  });

  it('keeps capitals that carry meaning and drops those of sentence starts', () => {
    const keywords = keywordsOf(
      'Glaciers retreat. Sequencing of DNA from Drosophila larvae shows that DNA repair genes respond to cold. Larvae of Drosophila survive.',
    );
    expect(keywords).to.include.members(['DNA', 'Drosophila', 'glaciers']);
    expect(keywords).not.to.include('Glaciers');
  });

  it('returns fewer keywords when the text has fewer content words', () => {
    expect(keywordsOf('The volcano erupted.')).to.deep.equal(['volcano']);
    expect(keywordsOf('')).to.deep.equal([]);
    expect(keywordsOf('and the of it is')).to.deep.equal([]);
  });

  it('never returns more than the maximum, and is deterministic', () => {
    const first = keywordsOf(PHOTOSYNTHESIS, { max: 6 });
    expect(first).to.have.length.at.most(6);
    expect(keywordsOf(PHOTOSYNTHESIS, { max: 6 })).to.deep.equal(first);
  });

  it('skips programming words in code mode', () => {
    const { tokens, sentences } = analyseBlocks([{ kind: 'code', text: 'const invoice total = compute invoice total(items); return invoice total;' }]);
    const keywords = extractKeywords(tokens, sentences, { code: true });
    expect(keywords).to.include('invoice');
    expect(keywords).not.to.include.members(['const', 'return']);
  });
});
