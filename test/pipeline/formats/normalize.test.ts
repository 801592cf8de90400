import { expect } from 'chai';
import { normalizeText, TextCollector } from '../../../src/pipeline/formats/normalize.js';

describe('normalizeText', () => {
  it('collapses runaway whitespace but keeps paragraph breaks', () => {
    expect(normalizeText('  a \t\u00A0 b  \r\n\r\n\r\n\n  c\u0000d \u000b\n\n\n\ne  ')).to.equal('a b\n\ncd\n\ne');
  });

  it('drops soft hyphens and zero-width noise and composes to NFC', () => {
    expect(normalizeText('hy\u00ADphen\u200B e\u0301')).to.equal('hyphen é');
  });

  it('turns Unicode line separators into newlines', () => {
    expect(normalizeText('a\u2028b\u0085c')).to.equal('a\nb\nc');
  });
});

describe('TextCollector', () => {
  it('stops at twice the budget and records truncation', () => {
    const out = new TextCollector(1000);
    for (let i = 0; i < 500; i++) out.push('0123456789');
    expect(out.full).to.equal(true);
    expect(out.truncated).to.equal(true);
    expect(out.toString().length).to.equal(2000);
  });

  it('adds a newline only where the text does not already end a line', () => {
    const out = new TextCollector(100);
    out.newline();
    out.push('a');
    out.newline();
    out.newline();
    out.push('b');
    expect(out.toString()).to.equal('a\nb');
    expect(out.truncated).to.equal(false);
  });
});
