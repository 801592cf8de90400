import { expect } from 'chai';
import { buildFilterConditions, validateCandidateFilters, type CandidateFilters } from '../../src/search/candidate-filters.js';
import { SqlParams } from '../../src/search/sql-params.js';

describe('validateCandidateFilters', () => {
  it('normalises extensions, dates and keywords', () => {
    const check = validateCandidateFilters({
      extensions: ['.PDF', 'md', 'pdf'],
      modifiedAfter: '2024-03-01',
      createdBefore: '2024-03-01T12:00:00+02:00',
      keywords: [' budget ', 'budget'],
      sizeMin: 0,
    });
    expect(check).to.deep.equal({
      ok: true,
      filters: {
        extensions: ['pdf', 'md'],
        modifiedAfter: '2024-03-01T00:00:00.000Z',
        createdBefore: '2024-03-01T10:00:00.000Z',
        keywords: ['budget'],
        sizeMin: 0,
      },
    });
  });

  it('rejects each malformed field, naming it', () => {
    const cases: [CandidateFilters, keyof CandidateFilters][] = [
      [{ extensions: [''] }, 'extensions'],
      [{ extensions: ['a/b'] }, 'extensions'],
      [{ extensions: 'pdf' as unknown as string[] }, 'extensions'],
      [{ modifiedAfter: 'yesterday' }, 'modifiedAfter'],
      [{ createdBefore: '2024-13-45' }, 'createdBefore'],
      [{ sizeMin: -1 }, 'sizeMin'],
      [{ sizeMax: 1.5 }, 'sizeMax'],
      [{ directory: 'relative/dir' }, 'directory'],
      [{ pathGlob: '*.{pdf' }, 'pathGlob'],
      [{ keywords: [''] }, 'keywords'],
    ];
    for (const [filters, field] of cases) {
      const check = validateCandidateFilters(filters);
      expect(check, JSON.stringify(filters)).to.deep.include({ ok: false, code: 'invalid_filter', field });
    }
  });
});

describe('buildFilterConditions', () => {
  it('binds every value as a typed parameter', () => {
    const params = new SqlParams();
    const conditions = buildFilterConditions(
      { extensions: ['pdf'], sizeMax: 10, directory: '/home/a_b', pathGlob: '*.pdf', keywords: ["o'brien"] },
      params,
      'f',
    );
    expect(conditions).to.deep.equal([
      'f.extension = ANY($1::text[])',
      'f.size <= $2::bigint',
      'f.path LIKE $3::text',
      'f.filename ~* $4::text',
      'EXISTS (SELECT 1 FROM unnest(f.keywords) AS kw WHERE lower(kw) = lower($5::text))',
    ]);
    expect(params.values).to.deep.equal([['pdf'], 10, '/home/a\\_b/%', '^[^/]*\\.pdf$', "o'brien"]);
  });

  it('gives no condition for no filter', () => {
    expect(buildFilterConditions({}, new SqlParams())).to.deep.equal([]);
  });
});
