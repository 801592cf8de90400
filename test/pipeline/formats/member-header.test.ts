import { expect } from 'chai';
import { memberHeader, memberName, splitMembers } from '../../../src/pipeline/formats/member-header.js';

describe('archive member headers', () => {
  it('round-trips a member path, odd characters included', () => {
    for (const name of ['a.txt', 'docs/report [final].docx', '../../etc/passwd', 'inner.zip/x.txt']) {
      expect(memberName(memberHeader(name))).to.equal(name);
    }
    expect(memberName('plain text [not a header]')).to.equal(undefined);
    expect(memberName('[]')).to.equal(undefined);
  });

  it("splits an archive's text back into its members, in order, listed-only members with no text", () => {
    const text = [memberHeader('a.txt'), 'First line.', '', 'Second paragraph.', '', memberHeader('b.jpg'), '', memberHeader('c.md'), '# C'].join('\n');
    expect(splitMembers(text)).to.deep.equal([
      { name: 'a.txt', text: 'First line.\n\nSecond paragraph.' },
      { name: 'b.jpg', text: '' },
      { name: 'c.md', text: '# C' },
    ]);
  });
});
