import { expect } from 'chai';
import { decodeTextHead } from '../../src/store/binary.js';

describe('store/binary: decodeTextHead', () => {
  const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
  /** What PostgreSQL's left(text, n) answers: the first n code points. */
  const left = (text: string, n: number) => [...text].slice(0, n).join('');

  it('answers the first n characters, counted as code points, of ASCII, two-, three- and four-byte characters', () => {
    const text = 'aé€🐢'.repeat(50);
    for (const n of [0, 1, 2, 3, 4, 5, 99, 200, 201, 500]) expect(decodeTextHead(utf8(text), n), `n = ${n}`).to.equal(left(text, n));
  });

  it('leaves out a character cut at the end of the bytes, and keeps whole ones', () => {
    for (const tail of ['é', '€', '🐢']) {
      const bytes = utf8(`abc${tail}`);
      for (let cut = 4; cut < bytes.length; cut++) expect(decodeTextHead(bytes.subarray(0, cut), 10), `${tail} cut at ${cut}`).to.equal('abc');
      expect(decodeTextHead(bytes, 10)).to.equal(`abc${tail}`);
    }
  });

  it('takes n characters out of the first 4n bytes of any text, as the result rows send them', () => {
    const texts = ['x'.repeat(100), '🐢'.repeat(100), 'ü🐢a€'.repeat(40), `${'a'.repeat(37)}🐢🐢🐢`];
    for (const text of texts) {
      for (const n of [1, 7, 10, 25]) expect(decodeTextHead(utf8(text).subarray(0, 4 * n), n), `${text.slice(0, 8)}…, n = ${n}`).to.equal(left(text, n));
    }
  });

  it('answers an empty text for no bytes', () => {
    expect(decodeTextHead(null, 10)).to.equal('');
    expect(decodeTextHead(new Uint8Array(0), 10)).to.equal('');
  });
});
