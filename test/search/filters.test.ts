import { expect } from 'chai';
import { validateCandidateFilters } from '../../src/search/filters.js';
import type { CandidateFilters } from '../../src/store/queries/filters.js';

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
