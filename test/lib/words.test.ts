import { expect } from 'chai';
import { capWords, MAX_WORD_CHARS } from '../../src/lib/words.js';

describe('capWords', () => {
  it('cuts every run of non-space characters to MAX_WORD_CHARS and leaves the rest as it was', () => {
    const long = 'x'.repeat(50_000);
    const capped = capWords(`Intro ${long} mid\t${'y'.repeat(MAX_WORD_CHARS)} outro.`);
    expect(capped).to.equal(`Intro ${'x'.repeat(MAX_WORD_CHARS)} mid\t${'y'.repeat(MAX_WORD_CHARS)} outro.`);
    expect(capWords('ordinary words stay')).to.equal('ordinary words stay');
  });

  it('cuts a run wherever it starts: at the start, after any space, at the end, one character over the limit', () => {
    const at = (n: number, c = 'z'): string => c.repeat(n);
    const cut = at(MAX_WORD_CHARS);
    expect(capWords(at(MAX_WORD_CHARS + 1))).to.equal(cut);
    expect(capWords(`${at(MAX_WORD_CHARS + 1)}\n${at(200, 'é')}`)).to.equal(`${cut}\n${at(MAX_WORD_CHARS, 'é')}`);
    expect(capWords(`a\u00A0${at(70)}\u3000b ${at(MAX_WORD_CHARS)}`)).to.equal(`a\u00A0${cut}\u3000b ${cut}`);
    expect(capWords(`  ${at(66)}`)).to.equal(`  ${cut}`);
  });
});
