import { expect } from 'chai';
import { Value } from 'typebox/value';
import { defaultFilterConfig } from '../../src/filters/defaults.js';
import { compileFilter } from '../../src/filters/matcher.js';
import {
  ApplyResultSchema,
  decisionBody,
  FilterConfigSchema,
  FilterDecisionSchema,
  FilterModeSchema,
  PatternBodySchema,
  PutFilterConfigBodySchema,
  TestPathBodySchema,
} from '../../src/filters/schema.js';

describe('FilterModeSchema', () => {
  it('accepts the two modes only', () => {
    expect(Value.Check(FilterModeSchema, 'blacklist')).to.equal(true);
    expect(Value.Check(FilterModeSchema, 'whitelist')).to.equal(true);
    expect(Value.Check(FilterModeSchema, 'Blacklist')).to.equal(false);
  });
});

describe('FilterConfigSchema', () => {
  it('accepts the default configuration and requires every SPEC 2.8 field', () => {
    const cfg = defaultFilterConfig();
    expect(Value.Check(FilterConfigSchema, cfg)).to.equal(true);
    for (const field of Object.keys(cfg)) {
      const partial: Record<string, unknown> = { ...cfg };
      delete partial[field];
      expect(Value.Check(FilterConfigSchema, partial), field).to.equal(false);
    }
    expect(Value.Check(FilterConfigSchema, { ...cfg, extra: true })).to.equal(false);
  });
});

describe('PutFilterConfigBodySchema', () => {
  it('accepts an empty body, a mode switch, apply_immediately and whole lists', () => {
    expect(Value.Check(PutFilterConfigBodySchema, {})).to.equal(true);
    expect(Value.Check(PutFilterConfigBodySchema, { mode: 'whitelist', apply_immediately: false })).to.equal(true);
    expect(Value.Check(PutFilterConfigBodySchema, { blacklist_exclude: ['*.psd'], include: [] })).to.equal(true);
  });

  it('defaults apply_immediately to true', () => {
    expect(Value.Default(PutFilterConfigBodySchema, {})).to.deep.equal({ apply_immediately: true });
  });

  it('rejects unknown fields, wrong types and empty patterns', () => {
    expect(Value.Check(PutFilterConfigBodySchema, { mdoe: 'whitelist' })).to.equal(false);
    expect(Value.Check(PutFilterConfigBodySchema, { mode: 'greylist' })).to.equal(false);
    expect(Value.Check(PutFilterConfigBodySchema, { apply_immediately: 'yes' })).to.equal(false);
    expect(Value.Check(PutFilterConfigBodySchema, { exclude: '*.md' })).to.equal(false);
    expect(Value.Check(PutFilterConfigBodySchema, { exclude: [''] })).to.equal(false);
  });
});

describe('PatternBodySchema', () => {
  it('requires pattern and list; mode and apply_immediately are optional', () => {
    expect(Value.Check(PatternBodySchema, { pattern: '*.psd', list: 'exclude' })).to.equal(true);
    expect(Value.Check(PatternBodySchema, { pattern: '*.psd', list: 'include', mode: 'whitelist', apply_immediately: false })).to.equal(true);
    expect(Value.Check(PatternBodySchema, { pattern: '*.psd' })).to.equal(false);
    expect(Value.Check(PatternBodySchema, { pattern: '', list: 'exclude' })).to.equal(false);
    expect(Value.Check(PatternBodySchema, { pattern: '*.psd', list: 'blacklist' })).to.equal(false);
    expect(Value.Check(PatternBodySchema, { pattern: '*.psd', list: 'exclude', extra: 1 })).to.equal(false);
  });
});

describe('TestPathBodySchema', () => {
  it('requires a path; kind and mode are optional', () => {
    expect(Value.Check(TestPathBodySchema, { path: '/home/me/x.md' })).to.equal(true);
    expect(Value.Check(TestPathBodySchema, { path: 'x', kind: 'directory', mode: 'whitelist' })).to.equal(true);
    expect(Value.Check(TestPathBodySchema, { path: '' })).to.equal(false);
    expect(Value.Check(TestPathBodySchema, { path: 'x', kind: 'folder' })).to.equal(false);
    expect(Value.Check(TestPathBodySchema, { file_path: 'x' })).to.equal(false);
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

describe('ApplyResultSchema', () => {
  it('holds the two counts', () => {
    expect(Value.Check(ApplyResultSchema, { removed: 3, queued: 0 })).to.equal(true);
    expect(Value.Check(ApplyResultSchema, { removed: 3 })).to.equal(false);
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
