import { expect } from 'chai';
import { Value } from '#typebox/value';
import { defaultFilterConfig } from '../../../src/filters/defaults.js';
import { compileFilter } from '../../../src/filters/matcher.js';
import { decisionBody, FilterDecisionSchema, PatternBody, PutFilterConfigBody, TestPathBody } from '../../../src/http/routes/filters.schemas.js';

describe('PutFilterConfigBody', () => {
  it('accepts an empty body, a mode switch, apply_immediately and whole lists', () => {
    expect(Value.Check(PutFilterConfigBody, {})).to.equal(true);
    expect(Value.Check(PutFilterConfigBody, { mode: 'whitelist', apply_immediately: false })).to.equal(true);
    expect(Value.Check(PutFilterConfigBody, { blacklist_exclude: ['*.psd'], include: [] })).to.equal(true);
  });

  it('defaults apply_immediately to true', () => {
    expect(Value.Default(PutFilterConfigBody, {})).to.deep.equal({ apply_immediately: true });
  });

  it('rejects unknown fields, wrong types and empty patterns', () => {
    expect(Value.Check(PutFilterConfigBody, { mdoe: 'whitelist' })).to.equal(false);
    expect(Value.Check(PutFilterConfigBody, { mode: 'greylist' })).to.equal(false);
    expect(Value.Check(PutFilterConfigBody, { apply_immediately: 'yes' })).to.equal(false);
    expect(Value.Check(PutFilterConfigBody, { exclude: '*.md' })).to.equal(false);
    expect(Value.Check(PutFilterConfigBody, { exclude: [''] })).to.equal(false);
  });
});

describe('PatternBody', () => {
  it('requires pattern and list; mode and apply_immediately are optional', () => {
    expect(Value.Check(PatternBody, { pattern: '*.psd', list: 'exclude' })).to.equal(true);
    expect(Value.Check(PatternBody, { pattern: '*.psd', list: 'include', mode: 'whitelist', apply_immediately: false })).to.equal(true);
    expect(Value.Check(PatternBody, { pattern: '*.psd' })).to.equal(false);
    // An empty pattern passes the shape check: the editor refuses it as invalid_pattern, with the reason.
    expect(Value.Check(PatternBody, { pattern: '', list: 'exclude' })).to.equal(true);
    expect(Value.Check(PatternBody, { pattern: '*.psd', list: 'blacklist' })).to.equal(false);
    expect(Value.Check(PatternBody, { pattern: '*.psd', list: 'exclude', extra: 1 })).to.equal(false);
  });
});

describe('TestPathBody', () => {
  it('requires a path; kind and mode are optional', () => {
    expect(Value.Check(TestPathBody, { path: '/home/me/x.md' })).to.equal(true);
    expect(Value.Check(TestPathBody, { path: 'x', kind: 'directory', mode: 'whitelist' })).to.equal(true);
    expect(Value.Check(TestPathBody, { path: '' })).to.equal(false);
    expect(Value.Check(TestPathBody, { path: 'x', kind: 'folder' })).to.equal(false);
    expect(Value.Check(TestPathBody, { file_path: 'x' })).to.equal(false);
  });
});

describe('FilterDecisionSchema', () => {
  it('describes the /test answer', () => {
    const body = {
      indexed: false,
      mode: 'blacklist',
      decided_by: { list: 'exclude', pattern: '.env', matched_path: '.env' },
      reason: "excluded by pattern '.env' (blacklist exclude)",
    };
    expect(Value.Check(FilterDecisionSchema, body)).to.equal(true);
    expect(Value.Check(FilterDecisionSchema, { ...body, decided_by: null })).to.equal(true);
    expect(Value.Check(FilterDecisionSchema, { ...body, decided_by: { list: 'exclude', pattern: '.env' } })).to.equal(false);
  });
});

describe('decisionBody', () => {
  it('maps real decisions to valid /test answers', () => {
    const m = compileFilter(defaultFilterConfig());
    const excluded = decisionBody(m.decide('app/node_modules/x/index.js'));
    expect(excluded).to.deep.equal({
      indexed: false,
      mode: 'blacklist',
      decided_by: { list: 'exclude', pattern: 'node_modules/', matched_path: 'app/node_modules' },
      reason: "excluded by pattern 'node_modules/' (blacklist exclude), which matches the folder 'app/node_modules'",
    });
    const indexed = decisionBody(m.decide('notes/todo.md'));
    expect(indexed.decided_by).to.equal(null);
    for (const body of [excluded, indexed]) expect(Value.Check(FilterDecisionSchema, body)).to.equal(true);
  });
});
