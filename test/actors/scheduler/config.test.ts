import { expect } from 'chai';
import { applySchedulerUpdate, DEFAULT_SCHEDULER_CONFIG } from '../../../src/actors/scheduler/config.js';
import type { SchedulerConfig } from '../../../src/settings/scheduler-schema.js';
import { validateSchedulerConfig } from '../../../src/actors/scheduler/validate.js';

describe('DEFAULT_SCHEDULER_CONFIG', () => {
  it('is a valid configuration with the scheduler off', () => {
    expect(validateSchedulerConfig(DEFAULT_SCHEDULER_CONFIG).ok).to.equal(true);
    expect(DEFAULT_SCHEDULER_CONFIG.enabled).to.equal(false);
    expect(DEFAULT_SCHEDULER_CONFIG.unavailable_policy).to.equal('fail');
  });
});

describe('applySchedulerUpdate', () => {
  const current: SchedulerConfig = {
    enabled: true,
    combine_mode: 'ALL',
    check_interval_seconds: 60,
    unavailable_policy: 'fail',
    rules: [
      { rule: 'cpu_percent', operator: '<=', value: 30, enabled: true },
      { rule: 'time_window', operator: 'in', value: '22:00-06:00', enabled: true },
    ],
  };

  it('changes only the fields given', () => {
    const next = applySchedulerUpdate(current, { check_interval_seconds: 15 });
    expect(next).to.deep.equal({ ...current, check_interval_seconds: 15 });
  });

  it('replaces the whole rules list when rules are given', () => {
    const rules = [{ rule: 'power_source' as const, operator: '==' as const, value: true, enabled: true }];
    expect(applySchedulerUpdate(current, { rules }).rules).to.deep.equal(rules);
    expect(applySchedulerUpdate(current, { rules: [] }).rules).to.deep.equal([]);
  });

  it('keeps false values (does not treat them as absent)', () => {
    expect(applySchedulerUpdate(current, { enabled: false }).enabled).to.equal(false);
  });

  it('does not modify the current configuration', () => {
    const before = structuredClone(current);
    const next = applySchedulerUpdate(current, { combine_mode: 'ANY' });
    next.rules[0]!.enabled = false;
    expect(current).to.deep.equal(before);
  });
});
