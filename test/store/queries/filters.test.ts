import { expect } from 'chai';
import { buildFilterConditions } from '../../../src/store/queries/filters.js';
import { SqlParams } from '../../../src/store/queries/params.js';

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
