import { expect } from 'chai';
import { evaluateRules } from '../../../src/actors/scheduler/evaluate.js';
import { available } from '../../../src/actors/scheduler/readings.js';
import type { SchedulerConfig } from '../../../src/settings/scheduler-schema.js';
import { schedulerResponse } from '../../../src/actors/scheduler/view.js';
import { snapshot } from './fixtures.js';

describe('schedulerResponse', () => {
  it('is the configuration with per-rule readings and verdicts, plus conditions_met', () => {
    const config: SchedulerConfig = {
      enabled: true,
      combine_mode: 'ANY',
      check_interval_seconds: 30,
      unavailable_policy: 'fail',
      rules: [{ rule: 'battery_level', operator: '>=', value: 50, enabled: true }],
    };
    const readings = snapshot({ battery_level: available(35) });
    const evaluation = evaluateRules(config, readings, new Date(2026, 0, 1, 9, 0));
    const body = schedulerResponse(config, evaluation, true);
    expect(body).to.deep.equal({
      enabled: true,
      combine_mode: 'ANY',
      check_interval_seconds: 30,
      unavailable_policy: 'fail',
      rules: [
        {
          rule: 'battery_level',
          operator: '>=',
          value: 50,
          enabled: true,
          reading: 35,
          available: true,
          passes: false,
          detail: 'battery_level 35 >= 50: fails',
        },
      ],
      conditions_met: false,
      paused_by_scheduler: true,
      checked_at: new Date(2026, 0, 1, 9, 0).toISOString(),
      detail: '0 of 1 enabled rules pass (ANY: at least one must pass): conditions not met',
      readings,
    });
  });
});
