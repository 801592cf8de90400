import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { corpusIdOf, markdownTable, readQueryFile, summarize } from '../../../bench/lib/search-bench.js';

describe('corpusIdOf', () => {
  it('answers the corpus id of a SciFact file name, null for any other file', () => {
    expect(corpusIdOf('4983.txt')).to.equal('4983');
    expect(corpusIdOf('notes.md')).to.equal(null);
    expect(corpusIdOf('.txt')).to.equal(null);
  });
});

describe('summarize', () => {
  it('gives nearest-rank percentiles and the mean', () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(summarize(values)).to.deep.equal({ n: 100, p50: 50, p95: 95, p99: 99, mean: 50.5 });
  });

  it('is empty-safe', () => {
    const s = summarize([]);
    expect(s.n).to.equal(0);
    expect(s.p50).to.be.NaN;
    expect(s.mean).to.be.NaN;
  });
});

describe('markdownTable', () => {
  it('prints a header, a rule and rows, numbers with the given decimals and non-finite ones as a dash', () => {
    expect(markdownTable(['mode', 'p50'], [['keyword', 5.678], ['semantic', NaN]], 2)).to.equal(
      ['| mode | p50 |', '|---|---|', '| keyword | 5.68 |', '| semantic | – |'].join('\n'),
    );
  });

  it('rejects a row of the wrong width', () => {
    expect(() => markdownTable(['a', 'b'], [['x']])).to.throw(/row has 1 cells, header 2/);
  });
});

describe('readQueryFile', () => {
  it('reads a query a line, trimmed, leaving out blank lines and comments', () => {
    expect(readQueryFile('# searches\n  asyncio event loop \n\nHashMap entry\r\n#typo\ndictonary\n', 'q.txt')).to.deep.equal([
      'asyncio event loop',
      'HashMap entry',
      'dictonary',
    ]);
  });

  it('refuses a file without a query, naming it', () => {
    expect(() => readQueryFile('# only a comment\n\n', 'empty.txt')).to.throw(/no queries in empty\.txt/);
  });

  it('reads the home directory queries kept in bench/', () => {
    const queries = readQueryFile(readFileSync(new URL('../../../../bench/home-queries.txt', import.meta.url), 'utf8'), 'home-queries.txt');
    expect(queries).to.have.length.greaterThan(50);
    expect(queries.every((q) => q.length > 0 && !q.startsWith('#'))).to.equal(true);
  });
});
