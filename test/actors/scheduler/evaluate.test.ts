import { expect } from 'chai';
import { evaluateRules, inTimeWindow } from '../../../src/actors/scheduler/evaluate.js';
import { available, unavailable } from '../../../src/actors/scheduler/readings.js';
import type { SchedulerConfig, SchedulerRule } from '../../../src/settings/scheduler-schema.js';
import { nothingReadable, snapshot } from './fixtures.js';

/** A local time today (the Date constructor with parts is local time, so this works in any TZ). */
function at(hours: number, minutes: number): Date {
  return new Date(2026, 10, 22, hours, minutes, 30);
}

type Config = Pick<SchedulerConfig, 'combine_mode' | 'unavailable_policy' | 'rules'>;
function config(rules: SchedulerRule[], combine_mode: 'ALL' | 'ANY' = 'ALL', unavailable_policy: 'fail' | 'pass' = 'fail'): Config {
  return { combine_mode, unavailable_policy, rules };
}

const noon = at(12, 0);

describe('inTimeWindow', () => {
  const cases: Array<[string, number, number, boolean]> = [
    ['09:00-17:00', 8, 59, false],
    ['09:00-17:00', 9, 0, true],
    ['09:00-17:00', 16, 59, true],
    ['09:00-17:00', 17, 0, false],
    ['22:00-06:00', 21, 59, false],
    ['22:00-06:00', 22, 0, true],
    ['22:00-06:00', 23, 30, true],
    ['22:00-06:00', 0, 0, true],
    ['22:00-06:00', 5, 59, true],
    ['22:00-06:00', 6, 0, false],
    ['22:00-06:00', 12, 0, false],
    ['23:59-00:00', 23, 59, true],
    ['23:59-00:00', 0, 0, false],
    ['00:00-23:59', 23, 59, false],
    ['00:00-23:59', 0, 0, true],
  ];
  for (const [window, h, m, expected] of cases) {
    it(`${window} at ${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')} → ${expected}`, () => {
      expect(inTimeWindow(window, at(h, m))).to.equal(expected);
    });
  }
});

describe('evaluateRules', () => {
  describe('each rule type compares its reading', () => {
    const readings = snapshot({
      battery_level: available(40),
      power_source: available(false),
      cpu_idle: available(90),
      cpu_percent: available(25),
      cpu_temperature: available(70),
      fan_speed: available(2000),
    });
    const cases: Array<[SchedulerRule, boolean]> = [
      [{ rule: 'battery_level', operator: '>=', value: 40, enabled: true }, true],
      [{ rule: 'battery_level', operator: '>', value: 40, enabled: true }, false],
      [{ rule: 'battery_level', operator: '<', value: 41, enabled: true }, true],
      [{ rule: 'battery_level', operator: '<=', value: 39, enabled: true }, false],
      [{ rule: 'battery_level', operator: '==', value: 40, enabled: true }, true],
      [{ rule: 'battery_level', operator: '==', value: 41, enabled: true }, false],
      [{ rule: 'power_source', operator: '==', value: false, enabled: true }, true],
      [{ rule: 'power_source', operator: '==', value: true, enabled: true }, false],
      [{ rule: 'cpu_idle', operator: '>=', value: 90, enabled: true }, true],
      [{ rule: 'cpu_idle', operator: '>=', value: 91, enabled: true }, false],
      [{ rule: 'cpu_percent', operator: '<=', value: 25, enabled: true }, true],
      [{ rule: 'cpu_percent', operator: '<=', value: 24.9, enabled: true }, false],
      [{ rule: 'cpu_percent', operator: '>=', value: 30, enabled: true }, false],
      [{ rule: 'cpu_temperature', operator: '<=', value: 70, enabled: true }, true],
      [{ rule: 'cpu_temperature', operator: '<=', value: 69, enabled: true }, false],
      [{ rule: 'fan_speed', operator: '<=', value: 2000, enabled: true }, true],
      [{ rule: 'fan_speed', operator: '<=', value: 1999, enabled: true }, false],
      [{ rule: 'time_window', operator: 'in', value: '11:00-13:00', enabled: true }, true],
      [{ rule: 'time_window', operator: 'in', value: '22:00-06:00', enabled: true }, false],
    ];
    for (const [rule, passes] of cases) {
      it(`${rule.rule} ${rule.operator} ${String(rule.value)} → ${passes}`, () => {
        const result = evaluateRules(config([rule]), readings, noon);
        expect(result.rules[0]).to.include({ passes, available: true });
        expect(result.conditions_met).to.equal(passes);
      });
    }
  });

  it('reports the reading and a one-line detail per rule', () => {
    const result = evaluateRules(
      config([
        { rule: 'cpu_percent', operator: '<=', value: 20, enabled: true },
        { rule: 'time_window', operator: 'in', value: '22:00-06:00', enabled: true },
        { rule: 'power_source', operator: '==', value: true, enabled: true },
      ]),
      snapshot({ cpu_percent: available(12.5), power_source: available(true, 'mains adapter AC') }),
      at(23, 15),
    );
    expect(result.rules).to.deep.equal([
      {
        rule: 'cpu_percent',
        operator: '<=',
        value: 20,
        enabled: true,
        reading: 12.5,
        available: true,
        passes: true,
        detail: 'cpu_percent 12.5 <= 20: passes',
      },
      {
        rule: 'time_window',
        operator: 'in',
        value: '22:00-06:00',
        enabled: true,
        reading: '23:15',
        available: true,
        passes: true,
        detail: 'local time 23:15 in 22:00-06:00: passes',
      },
      {
        rule: 'power_source',
        operator: '==',
        value: true,
        enabled: true,
        reading: true,
        available: true,
        passes: true,
        detail: 'power_source true (plugged in) == true: passes [mains adapter AC]',
      },
    ]);
    expect(result.checked_at).to.equal(at(23, 15).toISOString());
    expect(result.detail).to.equal('3 of 3 enabled rules pass (ALL: all must pass): conditions met');
  });

  describe('combine_mode', () => {
    const passing: SchedulerRule = { rule: 'cpu_percent', operator: '<=', value: 50, enabled: true };
    const failing: SchedulerRule = { rule: 'cpu_temperature', operator: '<=', value: 30, enabled: true };
    const table: Array<['ALL' | 'ANY', SchedulerRule[], boolean]> = [
      ['ALL', [passing, passing], true],
      ['ALL', [passing, failing], false],
      ['ALL', [failing, failing], false],
      ['ANY', [passing, failing], true],
      ['ANY', [failing, passing], true],
      ['ANY', [failing, failing], false],
    ];
    for (const [mode, rules, met] of table) {
      it(`${mode} over [${rules.map((r) => (r === passing ? 'pass' : 'fail')).join(', ')}] → ${met}`, () => {
        const result = evaluateRules(config(rules, mode), snapshot(), noon);
        expect(result.conditions_met).to.equal(met);
        expect(result.enabled_rules).to.equal(2);
      });
    }

    it('counts only enabled rules', () => {
      const disabledFailing = { ...failing, enabled: false };
      const result = evaluateRules(config([passing, disabledFailing], 'ALL'), snapshot(), noon);
      expect(result.conditions_met).to.equal(true);
      expect(result.enabled_rules).to.equal(1);
      expect(result.rules[1]).to.include({ passes: false });
      expect(result.rules[1]?.detail).to.match(/\(rule disabled: not counted\)$/);
      const anyResult = evaluateRules(config([{ ...passing, enabled: false }, failing], 'ANY'), snapshot(), noon);
      expect(anyResult.conditions_met).to.equal(false);
    });

    for (const mode of ['ALL', 'ANY'] as const) {
      it(`${mode} with no enabled rule: conditions met`, () => {
        expect(evaluateRules(config([], mode), snapshot(), noon).conditions_met).to.equal(true);
        const onlyDisabled = evaluateRules(config([{ ...failing, enabled: false }], mode), snapshot(), noon);
        expect(onlyDisabled.conditions_met).to.equal(true);
        expect(onlyDisabled.detail).to.equal('no enabled rules: conditions met');
      });
    }
  });

  describe('unavailable readings', () => {
    const fanRule: SchedulerRule = { rule: 'fan_speed', operator: '<=', value: 3000, enabled: true };

    it("with policy 'fail' (default) the rule does not pass, and the detail says why", () => {
      const result = evaluateRules(config([fanRule]), snapshot({ fan_speed: unavailable('no fan sensor') }), noon);
      expect(result.conditions_met).to.equal(false);
      expect(result.unavailable_policy).to.equal('fail');
      expect(result.rules[0]).to.deep.include({
        reading: null,
        available: false,
        passes: false,
        detail: "fan_speed unavailable: no fan sensor; unavailable_policy 'fail' counts it as not passing",
      });
    });

    it("with policy 'pass' the rule passes, still shown as unavailable", () => {
      const result = evaluateRules(config([fanRule], 'ALL', 'pass'), snapshot({ fan_speed: unavailable('no fan sensor') }), noon);
      expect(result.conditions_met).to.equal(true);
      expect(result.rules[0]).to.include({ available: false, passes: true });
      expect(result.rules[0]?.detail).to.contain("unavailable_policy 'pass' counts it as passing");
    });

    it('never lets an unreadable metric pass silently under ALL', () => {
      const rules: SchedulerRule[] = [
        { rule: 'battery_level', operator: '>=', value: 20, enabled: true },
        { rule: 'cpu_percent', operator: '<=', value: 90, enabled: true },
        { rule: 'cpu_temperature', operator: '<=', value: 90, enabled: true },
      ];
      const result = evaluateRules(config(rules), nothingReadable, noon);
      expect(result.conditions_met).to.equal(false);
      expect(result.passing_rules).to.equal(0);
      for (const rule of result.rules) expect(rule.detail).to.contain('unavailable: ');
    });

    it('lets a readable rule carry ANY when another is unreadable', () => {
      const rules: SchedulerRule[] = [
        { rule: 'battery_level', operator: '>=', value: 20, enabled: true },
        { rule: 'time_window', operator: 'in', value: '11:00-13:00', enabled: true },
      ];
      expect(evaluateRules(config(rules, 'ANY'), nothingReadable, noon).conditions_met).to.equal(true);
    });
  });

  it('returns every reading of the machine alongside the rules', () => {
    const readings = snapshot({ fan_speed: unavailable('no fan sensor') });
    expect(evaluateRules(config([]), readings, noon).readings).to.deep.equal(readings);
  });
});
