import { expect } from 'chai';
import { applyCorrections, correctionNotice, searchesCorrections } from '../../src/search/typo.js';

describe('typo corrections in the query text', () => {
  const c = (word: string, replacement: string) => ({ word, replacement, df: 3 });

  it('replaces whole words, ignoring case, hyphenated parts too', () => {
    expect(applyCorrections('Pasword chnage', [c('pasword', 'password'), c('chnage', 'change')])).to.equal('password change');
    expect(applyCorrections('anti-inflamatory drugs', [c('inflamatory', 'inflammatory')])).to.equal('anti-inflammatory drugs');
    expect(applyCorrections('passwords pasword', [c('pasword', 'password')])).to.equal('passwords password');
  });

  it('leaves an excluded word as typed, and regular-expression characters are literal', () => {
    expect(applyCorrections('pasword -pasword', [c('pasword', 'password')])).to.equal('password -pasword');
    expect(applyCorrections('a+b c.d', [c('c.d', 'cd')])).to.equal('a+b cd');
    expect(applyCorrections('cxd', [c('c.d', 'cd')])).to.equal('cxd');
  });

  it('searches the corrections only in search mode and when there are some, and says so', () => {
    expect(searchesCorrections('search', [c('a', 'b')])).to.equal(true);
    expect(searchesCorrections('suggest', [c('a', 'b')])).to.equal(false);
    expect(searchesCorrections('search', [])).to.equal(false);
    expect(correctionNotice([c('pasword', 'password'), c('chnage', 'change')], 'password change')).to.equal(
      "No file contains 'pasword', 'chnage': showing results for 'password change'",
    );
  });
});
