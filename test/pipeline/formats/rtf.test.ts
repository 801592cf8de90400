import { expect } from 'chai';
import { rtfToText } from '../../../src/pipeline/formats/rtf.js';

const rtf = (body: string) => rtfToText(Buffer.from(body, 'latin1'), 100_000);

describe('rtfToText', () => {
  it('skips font tables, colour tables, pictures and field instructions', () => {
    const doc = rtf(
      '{\\rtf1\\ansi{\\fonttbl{\\f0 Arial;}}{\\colortbl;\\red0\\green0\\blue0;}' +
        '{\\pict\\pngblip 89504e47}Before {\\field{\\*\\fldinst HYPERLINK "http://x"}{\\fldrslt link text}} after\\par}',
    );
    expect(doc.text).to.equal('Before link text after');
  });

  it("decodes \\'hh in the font's code page and \\u with its fallback skipped", () => {
    const doc = rtf(
      "{\\rtf1\\ansi\\ansicpg1252{\\fonttbl{\\f0\\fcharset0 Arial;}{\\f1\\fcharset204 Arial Cyr;}}" +
        "\\f0 caf\\'e9 \\f1 \\'cf\\'f0\\'e8\\'e2\\'e5\\'f2 \\uc1\\u8364?\\u-3913?x}",
    );
    // \u-3913 is U+F0B7 (negative values wrap around 65536); each '?' is the skipped fallback.
    expect(doc.text).to.equal('café Привет €\uF0B7x');
  });

  it('decodes double-byte code pages (Shift_JIS via \\fcharset128)', () => {
    const doc = rtf("{\\rtf1\\ansi\\ansicpg932{\\fonttbl{\\f1\\fcharset128 MS Mincho;}}\\f1 \\'83\\'65\\'83\\'58\\'83\\'67}");
    expect(doc.text).to.equal('テスト');
  });

  it('reads \\info title and author as metadata, not text', () => {
    const doc = rtf('{\\rtf1{\\info{\\title Quarterly report}{\\author Ann Lee}{\\keywords a, b}}Body\\par}');
    expect(doc.text).to.equal('Body');
    expect(doc.metadata).to.deep.equal({ title: 'Quarterly report', author: 'Ann Lee', keywords: ['a', 'b'] });
  });

  it('keeps escaped braces and backslashes, maps cells and tabs, skips \\bin data', () => {
    const doc = rtf('{\\rtf1 a\\{b\\}c\\\\d\\tab e\\cell f\\row {\\*\\unknown junk}\\bin4 }{}}g}');
    expect(doc.text).to.equal('a{b}c\\d e f\ng');
  });
});
