import { expect } from 'chai';
import { MAX_PHRASES, parseSearchQuery } from '../../src/search/query-parser.js';

describe('parseSearchQuery', () => {
  it('reads free terms', () => {
    expect(parseSearchQuery('  quarterly   budget report ')).to.deep.equal({
      terms: ['quarterly', 'budget', 'report'],
      phrases: [],
      excluded: [],
      rankText: 'quarterly budget report',
      nameKey: 'quarterly budget report',
    });
  });

  it('reads quoted phrases (typographic quotes too), which also rank', () => {
    const q = parseSearchQuery('heart “failure rate” "acute  care" outcome');
    expect(q.phrases).to.deep.equal(['failure rate', 'acute care']);
    expect(q.terms).to.deep.equal(['heart', 'outcome']);
    expect(q.rankText).to.equal('heart failure rate acute care outcome');
  });

  it('reads -excluded words and -"excluded phrases", which do not rank', () => {
    const q = parseSearchQuery('budget -draft -"old version" 2024');
    expect(q.excluded).to.deep.equal(['draft', 'old version']);
    expect(q.terms).to.deep.equal(['budget', '2024']);
    expect(q.rankText).to.equal('budget 2024');
    expect(q.nameKey).to.equal('budget 2024');
  });

  it('keeps hyphens inside words and before digits, and ignores a lone hyphen', () => {
    const q = parseSearchQuery('covid-19 e-mail E2f-1, -2, -3 - x');
    expect(q.excluded).to.deep.equal([]);
    expect(q.terms).to.deep.equal(['covid-19', 'e-mail', 'E2f-1,', '-2,', '-3', 'x']);
  });

  it('ignores an unbalanced quote, reading the rest as words', () => {
    expect(parseSearchQuery('"unclosed phrase here')).to.deep.include({ phrases: [], terms: ['unclosed', 'phrase', 'here'] });
    expect(parseSearchQuery('-"unclosed phrase')).to.deep.include({ excluded: ['unclosed'], terms: ['phrase'] });
    expect(parseSearchQuery('a "b c" "d')).to.deep.include({ phrases: ['b c'], terms: ['a', 'd'] });
  });

  it('gives nothing to search for empty, blank, quote-only or exclusion-only input', () => {
    for (const input of ['', '   ', '""', '" "', '-', '- -', '-draft', '-"a b"']) {
      const q = parseSearchQuery(input);
      expect(q.rankText, input).to.equal('');
      expect(q.nameKey, input).to.equal(null);
    }
  });

  it('keeps tsquery operators and punctuation as plain text (the database only reads them as text)', () => {
    const q = parseSearchQuery(`a&b | !c :* (d) <-> 'e' \\f`);
    expect(q.terms).to.deep.equal(['a&b', '|', '!c', ':*', '(d)', '<->', "'e'", '\\f']);
    expect(parseSearchQuery('!!! ??? ...').terms).to.deep.equal(['!!!', '???', '...']);
  });

  it('drops NUL and control characters, which PostgreSQL text cannot hold', () => {
    const q = parseSearchQuery('a\u0000b\tc\u001fd');
    expect(q.terms).to.deep.equal(['a', 'b', 'c', 'd']);
    expect([...q.rankText].every((c) => c.charCodeAt(0) >= 0x20)).to.equal(true);
  });

  it('lower-cases the name key and keeps a file name whole', () => {
    expect(parseSearchQuery('Report.PDF').nameKey).to.equal('report.pdf');
    expect(parseSearchQuery('"My Report.docx"').nameKey).to.equal('my report.docx');
    expect(parseSearchQuery('report.pdf -draft').nameKey).to.equal('report.pdf');
  });

  it(`enforces at most ${MAX_PHRASES} phrases; further ones still rank as terms`, () => {
    const text = Array.from({ length: MAX_PHRASES + 2 }, (_, i) => `"p${i} q${i}"`).join(' ');
    const q = parseSearchQuery(text);
    expect(q.phrases).to.have.length(MAX_PHRASES);
    expect(q.terms).to.deep.equal([`p${MAX_PHRASES} q${MAX_PHRASES}`, `p${MAX_PHRASES + 1} q${MAX_PHRASES + 1}`]);
  });
});
