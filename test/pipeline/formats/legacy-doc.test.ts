import { expect } from 'chai';
import { cleanWordText } from '../../../src/pipeline/formats/legacy-doc.js';

describe('cleanWordText', () => {
  it('keeps field results, drops field codes (also nested), maps Word control characters', () => {
    const raw = 'See \u0013 HYPERLINK "http://a" \u0014the \u0013 PAGE \u00141\u0015 link\u0015 now\rcell\u0007next\u000bline opt\u001fional non\u001ebreak';
    expect(cleanWordText(raw)).to.equal('See the 1 link now\ncell\tnext\nline optional non-break');
  });

  it('drops a field without a result part entirely', () => {
    expect(cleanWordText('a\u0013 TOC \\o \u0015b')).to.equal('ab');
  });
});
