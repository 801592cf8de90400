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

  it('normalises a long text in pieces to what the whole-text passes give, character for character', () => {
    // The passes as one chain over the whole text (normalizeText before it worked in pieces).
    /* eslint-disable no-control-regex */
    const whole = (input: string): string =>
      input
        .replace(/\r\n?|[\u2028\u2029\u0085]/g, '\n')
        .replace(/[\u0000-\u0008\u000B\u000E-\u001F\u007F-\u009F\u00AD\uFEFF\u200B]/g, '')
        .replace(/[ \t\f\v\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]+/g, ' ')
        .replace(/ ?\n ?/g, '\n')
        .replace(/\n{3,}/g, '\n\n')
        .trim()
        .normalize('NFC')
        .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
    /* eslint-enable no-control-regex */
    // Every kind of character a pass looks at, beside the letters and digits pieces end between.
    const alphabet = ['a', 'Z', '7', 'e', ' ', '  ', ' ', ' ', '\t', '\f', '\v', ' \n', '\n ', ' \n ', '\r', '\n', '\r\n', '\n\n\n', '\u0000', '\u00AD', '\u200B', '\uFEFF', '\u0301', '\u0308',
      '\u00A0', '\u3000', '\u2000', '\u2028', '\u0085', '\uD83D', '\uDE00', '\uD83D\uDE00', 'é', '\u1100', '\u1161', '\uAC00', '\u11A8', 'ﬁ', '\u212B'];
    let seed = 17;
    const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    for (let round = 0; round < 12; round++) {
      const parts: string[] = [' \n'];
      for (let length = 0; length < 60_000; ) {
        const part = random(3) === 0 ? 'ab12'.slice(0, 1 + random(4)) : alphabet[random(alphabet.length)]!;
        parts.push(part);
        length += part.length;
      }
      parts.push('\t \u3000');
      const text = parts.join('');
      expect(normalizeText(text)).to.equal(whole(text));
      // A short text is one piece, normalised without the cutting.
      const short = text.slice(0, 2_000 + random(4_000));
      expect(normalizeText(short)).to.equal(whole(short));
    }
    // Without letters or digits to end a piece between, the text is one piece.
    const noInert = '\u0301 \u00e9\n'.repeat(10_000);
    expect(normalizeText(noInert)).to.equal(whole(noInert));
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
