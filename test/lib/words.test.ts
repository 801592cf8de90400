import { expect } from 'chai';
import { capWords, MAX_WORD_CHARS } from '../../src/lib/words.js';

describe('capWords', () => {
  it('cuts every run of non-space characters to MAX_WORD_CHARS and leaves the rest as it was', () => {
    const long = 'x'.repeat(50_000);
    const capped = capWords(`Intro ${long} mid\t${'y'.repeat(MAX_WORD_CHARS)} outro.`);
    expect(capped).to.equal(`Intro ${'x'.repeat(MAX_WORD_CHARS)} mid\t${'y'.repeat(MAX_WORD_CHARS)} outro.`);
    expect(capWords('ordinary words stay')).to.equal('ordinary words stay');
  });
});
