import { expect } from 'chai';
import { normaliseText, proseBlocks, stripInlineMarkup } from '../../../../src/pipeline/analyze/local/blocks.js';

describe('proseBlocks', () => {
  it('reads Markdown structure: headings, lists, fences, tables, quotes, rules', () => {
    const markdown = [
      '# Title',
      '',
      'Intro with a [link](https://example.com) and `code`.',
      '',
      'Setext heading',
      '--------------',
      '',
      '- first item',
      '  continued',
      '2. second item',
      '',
      '> quoted words',
      '',
      '```js',
      'const x = 1;',
      '```',
      '',
      '| a | b |',
      '|---|---|',
      '| 1 | 2 |',
      '',
      '***',
      '[ref]: https://example.com',
    ].join('\n');
    expect(proseBlocks(markdown)).to.deep.equal([
      { kind: 'heading', text: 'Title', level: 1 },
      { kind: 'paragraph', text: 'Intro with a link and code.' },
      { kind: 'heading', text: 'Setext heading', level: 2 },
      { kind: 'list', text: 'first item continued' },
      { kind: 'list', text: 'second item' },
      { kind: 'paragraph', text: 'quoted words' },
      { kind: 'code', text: 'const x = 1;' },
      { kind: 'table', text: 'a | b' },
      { kind: 'table', text: '1 | 2' },
    ]);
  });

  it('takes a lone first line before the body as a heading (SciFact: "title\\n\\nabstract")', () => {
    const blocks = proseBlocks('Sleep deprivation impairs memory.\n\nWe kept mice awake. They forgot the maze.');
    expect(blocks[0]).to.deep.equal({ kind: 'heading', text: 'Sleep deprivation impairs memory.', level: 0 });
    expect(blocks[1]?.kind).to.equal('paragraph');
  });

  it('does not take a first paragraph of several sentences for a heading', () => {
    const blocks = proseBlocks('We kept mice awake. They forgot the maze.\n\nMore text follows here.');
    expect(blocks[0]?.kind).to.equal('paragraph');
  });

  it('splits a short unpunctuated first line from the sentence that starts below it', () => {
    expect(proseBlocks('Meeting notes\nWe agreed to ship on Friday.')).to.deep.equal([
      { kind: 'heading', text: 'Meeting notes', level: 0 },
      { kind: 'paragraph', text: 'We agreed to ship on Friday.' },
    ]);
  });

  it('joins hard-wrapped prose into one paragraph', () => {
    expect(proseBlocks('The committee met on a cold\nmorning and voted to\nadjourn.')).to.deep.equal([
      { kind: 'paragraph', text: 'The committee met on a cold morning and voted to adjourn.' },
    ]);
  });

  it('turns mail headers into a subject heading and drops the rest', () => {
    const blocks = proseBlocks('From: a@b.c\nSubject: Fwd: Budget 2025\nDate: today\nX-Mailer: thing\n  folded\n\nNumbers attached.');
    expect(blocks).to.deep.equal([
      { kind: 'heading', text: 'Budget 2025', level: 1 },
      { kind: 'paragraph', text: 'Numbers attached.' },
    ]);
  });

  it('keeps a paragraph of "Key: value" lines out of the prose', () => {
    expect(proseBlocks('Intro text here. It has two sentences.\n\nVersion: 1.2\nAuthor: Ada Lovelace\n\nBody text.').map((block) => block.kind)).to.deep.equal([
      'paragraph',
      'table',
      'table',
      'paragraph',
    ]);
    expect(proseBlocks('Note: bring boots, the trail is muddy after rain.')[0]?.kind).to.equal('paragraph');
  });
});

describe('stripInlineMarkup', () => {
  it('removes emphasis, links, images, code spans and tags, keeping the words', () => {
    expect(stripInlineMarkup('A **bold** _move_ to ![alt text](x.png) [the site](http://x.y) <b>now</b> `npm i`  ~~old~~')).to.equal(
      'A bold move to alt text the site now npm i old',
    );
  });

  it('keeps snake_case and arithmetic intact', () => {
    expect(stripInlineMarkup('set max_input_chars to 2 * 3 * 4')).to.equal('set max_input_chars to 2 * 3 * 4');
  });
});

describe('normaliseText', () => {
  it('normalises line endings, tabs and invisible characters', () => {
    expect(normaliseText('a\r\nb\rc\td\u200be\u00a0f')).to.equal('a\nb\nc de f');
  });
});
