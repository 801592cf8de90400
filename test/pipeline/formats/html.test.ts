import { expect } from 'chai';
import { declaredHtmlCharset, htmlToText } from '../../../src/pipeline/formats/html.js';

describe('htmlToText', () => {
  it('drops scripts, styles, noscript and templates but keeps visible text', () => {
    const result = htmlToText(
      '<html><head><style>p{color:red}</style><script>var secret = 1;</script></head>' +
        '<body><noscript>enable js</noscript><template><p>hidden</p></template><p>Visible &amp; clear&nbsp;text</p></body></html>',
      10_000,
    );
    expect(result.text).to.equal('Visible & clear text');
  });

  it('takes the title from <title>, else from the first <h1>', () => {
    expect(htmlToText('<title> Page  title </title><h1>Heading</h1>', 1000).title).to.equal('Page title');
    expect(htmlToText('<body><h1>First <b>heading</b></h1><h1>Second</h1></body>', 1000).title).to.equal('First heading');
    expect(htmlToText('<p>no title</p>', 1000).title).to.equal(undefined);
  });

  it('separates blocks, table cells and list items', () => {
    const result = htmlToText('<div>one</div><div>two</div><table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table><ul><li>x</li><li>y</li></ul>', 1000);
    expect(result.text).to.equal('one\ntwo\na b\nc\nx\ny');
  });

  it('reads author, description, keywords and language', () => {
    const result = htmlToText(
      '<html lang="de"><head><meta name="author" content="Ann"><meta name="keywords" content="a, b"><meta name="description" content="About"></head><body>x</body></html>',
      1000,
    );
    expect(result.metadata).to.include({ language: 'de', author: 'Ann', description: 'About' });
    expect(result.metadata.keywords).to.deep.equal(['a', 'b']);
  });
});

describe('declaredHtmlCharset', () => {
  it('finds meta charset and http-equiv declarations', () => {
    expect(declaredHtmlCharset(Buffer.from('<meta charset="windows-1251">'))).to.equal('windows-1251');
    expect(declaredHtmlCharset(Buffer.from('<meta http-equiv=Content-Type content="text/html; charset=iso-8859-6">'))).to.equal('iso-8859-6');
    expect(declaredHtmlCharset(Buffer.from('<p>none</p>'))).to.equal(undefined);
  });
});
