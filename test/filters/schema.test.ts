import { expect } from 'chai';
import { Value } from '#typebox/value';
import { defaultFilterConfig } from '../../src/filters/defaults.js';
import { FilterConfigSchema, FilterConfigUpdateSchema, FilterModeSchema } from '../../src/filters/schema.js';

describe('FilterModeSchema', () => {
  it('accepts the two modes only', () => {
    expect(Value.Check(FilterModeSchema, 'blacklist')).to.equal(true);
    expect(Value.Check(FilterModeSchema, 'whitelist')).to.equal(true);
    expect(Value.Check(FilterModeSchema, 'Blacklist')).to.equal(false);
  });
});

describe('FilterConfigSchema', () => {
  it('accepts the default configuration and requires every field', () => {
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

describe('FilterConfigUpdateSchema', () => {
  it('takes a mode and whole lists, each optional, and nothing else', () => {
    expect(Value.Check(FilterConfigUpdateSchema, {})).to.equal(true);
    expect(Value.Check(FilterConfigUpdateSchema, { mode: 'whitelist', blacklist_exclude: ['*.psd'], include: [] })).to.equal(true);
    expect(Value.Check(FilterConfigUpdateSchema, { apply_immediately: true })).to.equal(false);
    expect(Value.Check(FilterConfigUpdateSchema, { exclude: [''] })).to.equal(false);
  });
});
