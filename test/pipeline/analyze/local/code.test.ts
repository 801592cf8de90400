import { expect } from 'chai';
import { codeBlocks, isCodeFile, splitIdentifiers } from '../../../../src/pipeline/analyze/local/code.js';

describe('codeBlocks', () => {
  it('separates comment prose from code and finds the leading comment after imports', () => {
    const source = [
      '/* SPDX-License-Identifier: MIT */',
      "import x from 'y';",
      '/**',
      ' * Renders the weekly calendar view.',
      ' * @param week the week to show',
      ' */',
      'export function renderWeek(week) {',
      '  // eslint-disable-next-line no-console',
      '  return drawGrid(week); // trailing comments stay with the code',
      '}',
    ].join('\n');
    const { blocks, leadingComment } = codeBlocks(source, 'js', 'calendar.js');
    expect(blocks.filter((block) => block.kind === 'paragraph').map((block) => block.text)).to.deep.equal([
      'Renders the weekly calendar view.',
    ]);
    expect(leadingComment).to.equal(1);
    expect(blocks[leadingComment ?? -1]?.text).to.equal('Renders the weekly calendar view.');
    expect(blocks.some((block) => block.kind === 'code' && block.text.includes('render Week'))).to.equal(true);
  });

  it('has no leading comment when code comes first', () => {
    const { leadingComment, blocks } = codeBlocks('x = 1\n# set x to one\n', 'py', 'a.py');
    expect(leadingComment).to.equal(undefined);
    expect(blocks.map((block) => block.kind)).to.deep.equal(['code', 'paragraph']);
  });

  it('reads Python docstrings and hash comments, skipping the shebang and coding line', () => {
    const { blocks } = codeBlocks('#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n"""Sync photos\nto the archive."""\nimport os\n', 'py', 'sync.py');
    expect(blocks[0]).to.deep.equal({ kind: 'paragraph', text: 'Sync photos to the archive.' });
  });

  it('reads SQL line comments', () => {
    const { blocks } = codeBlocks('-- Monthly revenue per region\nSELECT region, sum(amount) FROM sales GROUP BY region;', 'sql', 'q.sql');
    expect(blocks[0]).to.deep.equal({ kind: 'paragraph', text: 'Monthly revenue per region' });
  });
});

describe('splitIdentifiers', () => {
  it('splits camelCase, PascalCase, acronyms and snake_case into words', () => {
    expect(splitIdentifiers('parseHTTPRequest file_path MAX_SIZE userId2Name')).to.equal(
      'parse HTTP Request file path MAX SIZE user Id2 Name',
    );
  });
});

describe('isCodeFile', () => {
  it('knows source extensions and extension-less build files, not documents', () => {
    expect(isCodeFile('ts', 'a.ts')).to.equal(true);
    expect(isCodeFile('py', 'a.py')).to.equal(true);
    expect(isCodeFile('', 'Makefile')).to.equal(true);
    expect(isCodeFile('md', 'README.md')).to.equal(false);
    expect(isCodeFile('txt', 'notes.txt')).to.equal(false);
  });
});
