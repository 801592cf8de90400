import { expect } from 'chai';
import { Value } from '#typebox/value';
import {
  PutSchedulerBody,
  RULE_TYPES,
  RULE_VARIANTS,
  SchedulerConfigSchema,
  SchedulerRuleInput,
  TIME_WINDOW_PATTERN,
} from '../../src/settings/scheduler-schema.js';

// The TypeBox schemas are what routes and API docs see; they must draw the same lines as validate.ts.

describe('SchedulerRuleInput', () => {
  const accepted = [
    { rule: 'battery_level', operator: '<', value: 30 },
    { rule: 'power_source', operator: '==', value: false, enabled: false },
    { rule: 'cpu_idle', operator: '>=', value: 600 },
    { rule: 'cpu_percent', operator: '>=', value: 5 },
    { rule: 'cpu_temperature', operator: '<=', value: 70 },
    { rule: 'fan_speed', operator: '<=', value: 2500 },
    { rule: 'time_window', operator: 'in', value: '23:00-07:00' },
  ];
  const rejected = [
    { rule: 'power_source', operator: '==', value: 1 },
    { rule: 'cpu_percent', operator: '==', value: 5 },
    { rule: 'cpu_temperature', operator: '>=', value: 70 },
    { rule: 'time_window', operator: 'in', value: '7:00-08:00' },
    { rule: 'time_window', operator: '==', value: '07:00-08:00' },
    { rule: 'fan_speed', operator: '<=', value: 2500, extra: true },
    { type: 'fan_speed', operator: '<=', value: 2500 },
    { rule: 'battery_level', operator: '>=', value: 150 },
  ];
  for (const rule of accepted) {
    it(`accepts ${JSON.stringify(rule)}`, () => expect(Value.Check(SchedulerRuleInput, rule)).to.equal(true));
  }
  for (const rule of rejected) {
    it(`rejects ${JSON.stringify(rule)}`, () => expect(Value.Check(SchedulerRuleInput, rule)).to.equal(false));
  }
});

describe('RULE_VARIANTS', () => {
  it('has one variant per spec rule type, discriminated by its own name', () => {
    expect(RULE_TYPES).to.deep.equal([
      'battery_level',
      'power_source',
      'cpu_idle',
      'cpu_percent',
      'cpu_temperature',
      'fan_speed',
      'time_window',
    ]);
    for (const type of RULE_TYPES) {
      expect(Value.Check(RULE_VARIANTS[type].properties.rule, type)).to.equal(true);
    }
  });
});

describe('TIME_WINDOW_PATTERN', () => {
  it('matches 24-hour two-digit windows only', () => {
    const re = new RegExp(TIME_WINDOW_PATTERN);
    expect(re.test('00:00-23:59')).to.equal(true);
    expect(re.test('23:60-00:00')).to.equal(false);
    expect(re.test('24:00-00:00')).to.equal(false);
  });
});

describe('SchedulerConfigSchema', () => {
  it('requires every field and refuses extras', () => {
    const config = { enabled: false, combine_mode: 'ALL', check_interval_seconds: 60, unavailable_policy: 'fail', rules: [] };
    expect(Value.Check(SchedulerConfigSchema, config)).to.equal(true);
    expect(Value.Check(SchedulerConfigSchema, { ...config, extra: 1 })).to.equal(false);
    expect(Value.Check(SchedulerConfigSchema, { ...config, combine_mode: undefined })).to.equal(false);
  });
});

describe('PutSchedulerBody', () => {
  it('makes every field optional and refuses extras', () => {
    expect(Value.Check(PutSchedulerBody, {})).to.equal(true);
    expect(Value.Check(PutSchedulerBody, { check_interval_seconds: 5 })).to.equal(true);
    expect(Value.Check(PutSchedulerBody, { check_interval_seconds: 4 })).to.equal(false);
    expect(Value.Check(PutSchedulerBody, { conditions_met: true })).to.equal(false);
  });
});
