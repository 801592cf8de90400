import { expect } from 'chai';
import { buildMessages, SYSTEM_PROMPT } from '../../../../src/pipeline/analyze/llm/prompt.js';
import { docFrom } from '../helpers.js';

describe('buildMessages', () => {
  it('asks for the JSON shape and shows file name, format, metadata title and the whole short text', () => {
    const doc = docFrom('tides.md', 'Tides follow the moon.', { metadata: { title: 'Tide notes' } });
    const [system, user] = buildMessages(doc, 1000);
    expect(system).to.deep.equal({ role: 'system', content: SYSTEM_PROMPT });
    expect(SYSTEM_PROMPT).to.include('{"title": string, "summary": string, "keywords": [string, ...]}');
    expect(user?.role).to.equal('user');
    expect(user?.content).to.equal(
      'File name: tides.md\nFormat: markdown\nTitle in the file\'s metadata: Tide notes\n\nText (the whole text):\n"""\nTides follow the moon.\n"""',
    );
  });

  it('sends a bounded excerpt cut at a word boundary, and says so', () => {
    const text = 'alpha beta gamma delta '.repeat(100);
    const user = buildMessages(docFrom('a.txt', text), 50)[1]?.content ?? '';
    const excerpt = user.split('"""\n')[1]?.replace(/\n"""$/, '') ?? '';
    expect(excerpt.length).to.be.at.most(50);
    expect(text.startsWith(excerpt)).to.equal(true);
    expect(excerpt).to.match(/(alpha|beta|gamma|delta)$/);
    expect(user).to.include(`(the first ${excerpt.length} of ${text.trim().length} characters)`);
  });
});
