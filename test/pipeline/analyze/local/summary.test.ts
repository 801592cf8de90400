import { expect } from 'chai';
import { proseBlocks } from '../../../../src/pipeline/analyze/local/blocks.js';
import type { BackgroundFrequencies } from '../../../../src/pipeline/analyze/local/background.js';
import { analyseBlocks } from '../../../../src/pipeline/analyze/local/nlp.js';
import { lexRank, summarize, truncate } from '../../../../src/pipeline/analyze/local/summary.js';

function summaryOf(text: string, options: Parameters<typeof summarize>[2] = {}): { summary: string; sentences: string[] } {
  const { tokens, sentences } = analyseBlocks(proseBlocks(text));
  return { summary: summarize(sentences, tokens, options), sentences: sentences.map((sentence) => sentence.text) };
}

const NEWSLETTER = [
  'Thank you for opening our monthly newsletter, and welcome to all new subscribers this spring.',
  'Coral reefs bleach when ocean heat stress makes corals expel their symbiotic algae.',
  'Repeated bleaching leaves reefs with less coral cover and fewer fish that depend on the coral.',
  'Marine heatwaves driven by rising ocean temperatures make coral bleaching more frequent on reefs worldwide.',
  'Shaded nurseries let scientists regrow heat-tolerant corals and replant bleached reefs.',
  'Please forward this message to a friend who might like it.',
].join(' ');

describe('summarize', () => {
  it('prefers a central sentence to a lead-in sentence', () => {
    const { summary, sentences } = summaryOf(NEWSLETTER, { maxSentences: 1 });
    expect(sentences).to.have.length(6);
    expect(summary).not.to.include('newsletter');
    expect(summary).to.match(/coral/i);
    expect(sentences.slice(1, 5)).to.include(summary);
  });

  it('returns at most three whole sentences of the text, in document order, within the budget', () => {
    const { summary, sentences } = summaryOf(NEWSLETTER);
    const picked = sentences.filter((sentence) => summary.includes(sentence));
    expect(picked.length).to.be.within(1, 3);
    expect(picked.join(' ')).to.equal(summary);
    expect(summary.length).to.be.at.most(400);
    expect(summary).not.to.match(/newsletter|forward this/);
  });

  it('keeps to a smaller character budget', () => {
    const { summary } = summaryOf(NEWSLETTER, { maxChars: 120 });
    expect(summary.length).to.be.at.most(120);
    expect(summary.length).to.be.above(40);
  });

  it('cuts a single overlong sentence at a word boundary', () => {
    const long = `Rivers ${'carry sediment from the mountains to the sea and '.repeat(20)}end here.`;
    const { summary } = summaryOf(long, { maxChars: 100 });
    expect(summary.length).to.be.at.most(100);
    expect(summary.endsWith('…')).to.equal(true);
    expect(long.startsWith(summary.slice(0, -1))).to.equal(true);
  });

  it('returns a short text whole', () => {
    expect(summaryOf('Tides follow the moon. Spring tides are the largest.').summary).to.equal(
      'Tides follow the moon. Spring tides are the largest.',
    );
  });

  it('skips a near-duplicate of a sentence already picked', () => {
    const text = [
      'Glaciers in the Alps lost a tenth of their ice volume in two hot summers.',
      'Glaciers in the Alps lost a tenth of their ice volume in two very hot summers.',
      'Meltwater from glaciers feeds rivers that supply hydropower in summer.',
      'Smaller glaciers may vanish entirely within decades as summers warm.',
      'Scientists measure glacier ice volume with radar from helicopters.',
    ].join(' ');
    const { summary } = summaryOf(text);
    expect(summary.match(/lost a tenth/g) ?? []).to.have.length.at.most(1);
  });

  it('returns an empty summary for no sentences', () => {
    expect(summarize([], [])).to.equal('');
  });

  it('weighs words by the background list it is given, whichever list was used before', () => {
    const text = [
      'People often say that the weather this year has been very strange and unusual.',
      'The weather was strange in spring, people say, and the summer was unusual too.',
      'Glaciologists measured ablation of the Vatnajokull outlet glaciers with lidar transects.',
      'The lidar transects show ablation of outlet glaciers faster than the models of Vatnajokull predicted.',
      'Outlet glaciers lose mass by ablation, lidar shows.',
    ].join(' ');
    const { tokens, sentences } = analyseBlocks(proseBlocks(text));
    // Every word equally common: sentences are linked by plain word overlap.
    const flat: BackgroundFrequencies = { size: 10, rank: () => 1 };
    const withDefault = () => summarize(sentences, tokens, { maxSentences: 1 });
    const withFlat = () => summarize(sentences, tokens, { maxSentences: 1 }, flat);
    expect(withDefault()).to.equal(sentences[3]!.text);
    expect(withFlat()).to.equal(sentences[2]!.text);
    expect(withDefault()).to.equal(sentences[3]!.text);
  });
});

describe('lexRank', () => {
  it('ranks the hub of a star graph first and sums to one', () => {
    const similarity = (a: number, b: number): number => (a === 0 || b === 0 ? 0.5 : 0.01);
    const scores = lexRank(5, similarity);
    expect(scores.reduce((sum, score) => sum + score, 0)).to.be.closeTo(1, 1e-9);
    for (const score of scores.slice(1)) expect(scores[0]).to.be.above(score);
  });

  it('scores disconnected sentences equally', () => {
    const scores = lexRank(4, () => 0);
    for (const score of scores) expect(score).to.be.closeTo(0.25, 1e-9);
  });
});

describe('truncate', () => {
  it('leaves short text alone and cuts long text at a word boundary with an ellipsis', () => {
    expect(truncate('short text', 20)).to.equal('short text');
    expect(truncate('the quick brown fox jumps over the lazy dog', 20)).to.equal('the quick brown fox…');
  });
});
