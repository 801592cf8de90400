import { expect } from 'chai';
import {
  describeValue,
  formatValidationErrors,
  validateSchedulerConfig,
  validateSchedulerUpdate,
  type ValidationError,
} from '../../../src/actors/scheduler/validate.js';

/** SPEC table 2.3, written out here on purpose (not derived from the code under test). */
const SPEC_RULES: Record<string, { operators: string[]; good: unknown }> = {
  battery_level: { operators: ['>=', '<=', '>', '<', '=='], good: 20 },
  power_source: { operators: ['=='], good: true },
  cpu_idle: { operators: ['>='], good: 300 },
  cpu_percent: { operators: ['<=', '>='], good: 50 },
  cpu_temperature: { operators: ['<='], good: 80 },
  fan_speed: { operators: ['<='], good: 3000 },
  time_window: { operators: ['in'], good: '22:00-06:00' },
};
const ALL_OPERATORS = ['>=', '<=', '>', '<', '==', 'in', '!=', '=', 'eq'];

function errorsOf(body: unknown): ValidationError[] {
  const result = validateSchedulerUpdate(body);
  expect(result.ok, `expected rejection of ${JSON.stringify(body)}`).to.equal(false);
  return result.ok ? [] : result.errors;
}

function acceptedRules(body: unknown): unknown {
  const result = validateSchedulerUpdate(body);
  if (!result.ok) expect.fail(`expected acceptance, got: ${formatValidationErrors(result.errors)}`);
  return result.value.rules;
}

describe('validateSchedulerUpdate', () => {
  describe('operators: each rule type admits exactly the spec operators', () => {
    for (const [rule, { operators, good }] of Object.entries(SPEC_RULES)) {
      for (const operator of ALL_OPERATORS) {
        const allowed = operators.includes(operator);
        it(`${rule} ${operator}: ${allowed ? 'accepted' : 'rejected'}`, () => {
          const body = { rules: [{ rule, operator, value: good }] };
          if (allowed) {
            expect(acceptedRules(body)).to.deep.equal([{ rule, operator, value: good, enabled: true }]);
          } else {
            const errors = errorsOf(body);
            expect(errors).to.deep.equal([
              {
                path: 'rules[0].operator',
                message: `rules[0] (${rule}): operator '${operator}' is not allowed; allowed: ${operators.join(', ')}`,
              },
            ]);
          }
        });
      }
    }
  });

  it('words the operator message as the issue asks', () => {
    const errors = errorsOf({
      rules: [
        { rule: 'time_window', operator: 'in', value: '08:00-18:00' },
        { rule: 'cpu_percent', operator: '==', value: 10 },
      ],
    });
    expect(errors.map((e) => e.message)).to.deep.equal([
      "rules[1] (cpu_percent): operator '==' is not allowed; allowed: <=, >=",
    ]);
  });

  describe('values: type and range per rule type', () => {
    const cases: Array<[string, unknown, string]> = [
      ['battery_level', '50', "value must be a number from 0 to 100, got string '50'"],
      ['battery_level', 101, 'value must be a number from 0 to 100, got number 101'],
      ['battery_level', -1, 'value must be a number from 0 to 100, got number -1'],
      ['battery_level', true, 'value must be a number from 0 to 100, got boolean true'],
      ['battery_level', null, 'value must be a number from 0 to 100, got null'],
      ['power_source', 1, 'value must be true or false, got number 1'],
      ['power_source', 'true', "value must be true or false, got string 'true'"],
      ['cpu_idle', -1, 'value must be a number >= 0, got number -1'],
      ['cpu_idle', [300], 'value must be a number >= 0, got an array'],
      ['cpu_percent', 100.5, 'value must be a number from 0 to 100, got number 100.5'],
      ['cpu_temperature', 200, 'value must be a number from -50 to 150, got number 200'],
      ['cpu_temperature', { c: 80 }, 'value must be a number from -50 to 150, got an object'],
      ['fan_speed', -5, 'value must be a number >= 0, got number -5'],
      ['time_window', 2200, 'value must be a local time window'],
    ];
    for (const [rule, value, message] of cases) {
      it(`${rule} rejects ${JSON.stringify(value)}`, () => {
        const operator = SPEC_RULES[rule]?.operators[0];
        const errors = errorsOf({ rules: [{ rule, operator, value }] });
        expect(errors).to.have.length(1);
        expect(errors[0]?.path).to.equal('rules[0].value');
        expect(errors[0]?.message).to.contain(`rules[0] (${rule}): ${message}`);
      });
    }

    const numericEdges: Array<[string, number]> = [
      ['battery_level', 0],
      ['battery_level', 100],
      ['cpu_percent', 0],
      ['cpu_percent', 100],
      ['cpu_percent', 12.5],
      ['cpu_idle', 0],
      ['cpu_temperature', -50],
      ['cpu_temperature', 150],
      ['fan_speed', 0],
    ];
    for (const [rule, value] of numericEdges) {
      it(`${rule} accepts ${value}`, () => {
        const operator = SPEC_RULES[rule]?.operators[0];
        expect(acceptedRules({ rules: [{ rule, operator, value }] })).to.deep.equal([{ rule, operator, value, enabled: true }]);
      });
    }
  });

  describe('time_window format HH:MM-HH:MM', () => {
    for (const good of ['22:00-06:00', '00:00-23:59', '23:59-00:00', '09:00-17:30']) {
      it(`accepts '${good}'`, () => {
        expect(acceptedRules({ rules: [{ rule: 'time_window', operator: 'in', value: good }] })).to.have.length(1);
      });
    }
    const malformed = [
      '25:00-01:00',
      '24:00-01:00',
      '9:00-10:00',
      '09:00-10:60',
      '09:0-10:00',
      '09:00 - 10:00',
      ' 09:00-10:00',
      '09:00-10:00 ',
      '0900-1000',
      '09:00',
      '09:00-10:00-11:00',
      '09.00-10.00',
      '',
    ];
    for (const bad of malformed) {
      it(`rejects '${bad}'`, () => {
        const errors = errorsOf({ rules: [{ rule: 'time_window', operator: 'in', value: bad }] });
        expect(errors).to.have.length(1);
        expect(errors[0]?.path).to.equal('rules[0].value');
        expect(errors[0]?.message).to.match(/^rules\[0\] \(time_window\): value must be a local time window 'HH:MM-HH:MM'/);
      });
    }
    it('rejects a window that starts and ends at the same minute as ambiguous', () => {
      const errors = errorsOf({ rules: [{ rule: 'time_window', operator: 'in', value: '09:00-09:00' }] });
      expect(errors).to.have.length(1);
      expect(errors[0]?.message).to.contain('rules[0] (time_window)').and.to.contain('ambiguous');
    });
  });

  describe('rule shape', () => {
    it("names a rule sent with the wrong key (the peer's bug) instead of accepting it", () => {
      const errors = errorsOf({ rules: [{ type: 'battery_level', operator: '>=', value: 20 }] });
      expect(errors.map((e) => e.path)).to.deep.equal(['rules[0].rule', 'rules[0].type']);
      expect(errors[0]?.message).to.match(/^rules\[0\]: missing field 'rule' \(the rule type\); one of: battery_level, /);
      expect(errors[1]?.message).to.equal("rules[0]: unknown field 'type'; allowed: rule, operator, value, enabled");
    });

    it('rejects an unknown rule type, listing the known ones', () => {
      const errors = errorsOf({ rules: [{ rule: 'memory_free', operator: '>=', value: 1 }] });
      expect(errors).to.deep.equal([
        {
          path: 'rules[0].rule',
          message:
            "rules[0]: unknown rule type string 'memory_free'; allowed: battery_level, power_source, cpu_idle, " +
            'cpu_percent, cpu_temperature, fan_speed, time_window',
        },
      ]);
    });

    it('rejects extra keys on a rule, naming the rule', () => {
      const errors = errorsOf({ rules: [{ rule: 'fan_speed', operator: '<=', value: 3000, threshold: 2 }] });
      expect(errors).to.deep.equal([
        {
          path: 'rules[0].threshold',
          message: "rules[0] (fan_speed): unknown field 'threshold'; allowed: rule, operator, value, enabled",
        },
      ]);
    });

    it('says that computed GET fields are not accepted back', () => {
      const errors = errorsOf({ rules: [{ rule: 'cpu_idle', operator: '>=', value: 60, passes: true }] });
      expect(errors[0]?.message).to.contain("unknown field 'passes' (computed by GET, not accepted in PUT");
    });

    it('reports missing operator and value with what is expected', () => {
      const errors = errorsOf({ rules: [{ rule: 'cpu_percent' }] });
      expect(errors.map((e) => e.message)).to.deep.equal([
        "rules[0] (cpu_percent): missing field 'operator' (one of: <=, >=)",
        "rules[0] (cpu_percent): missing field 'value' (a number from 0 to 100)",
      ]);
    });

    it('rejects a non-boolean enabled on a rule', () => {
      const errors = errorsOf({ rules: [{ rule: 'cpu_idle', operator: '>=', value: 60, enabled: 'yes' }] });
      expect(errors[0]?.message).to.equal("rules[0] (cpu_idle): enabled must be true or false, got string 'yes'");
    });

    it('rejects rules that are not objects', () => {
      const errors = errorsOf({ rules: ['cpu_percent', null, []] });
      expect(errors.map((e) => e.message)).to.deep.equal([
        "rules[0]: must be an object, got string 'cpu_percent'",
        'rules[1]: must be an object, got null',
        'rules[2]: must be an object, got an array',
      ]);
    });

    it('reports every bad rule, not just the first', () => {
      const errors = errorsOf({
        rules: [
          { rule: 'cpu_percent', operator: '<', value: 5 },
          { rule: 'cpu_idle', operator: '>=', value: 5 },
          { rule: 'power_source', operator: '==', value: 'yes' },
        ],
      });
      expect(errors.map((e) => e.path)).to.deep.equal(['rules[0].operator', 'rules[2].value']);
    });
  });

  describe('top-level fields', () => {
    it('accepts an empty body (nothing changes)', () => {
      expect(validateSchedulerUpdate({})).to.deep.equal({ ok: true, value: {} });
    });

    it('keeps only the fields given, filling rule.enabled with true when omitted', () => {
      const result = validateSchedulerUpdate({
        combine_mode: 'ANY',
        rules: [
          { rule: 'power_source', operator: '==', value: true },
          { rule: 'cpu_idle', operator: '>=', value: 600, enabled: false },
        ],
      });
      expect(result).to.deep.equal({
        ok: true,
        value: {
          combine_mode: 'ANY',
          rules: [
            { rule: 'power_source', operator: '==', value: true, enabled: true },
            { rule: 'cpu_idle', operator: '>=', value: 600, enabled: false },
          ],
        },
      });
    });

    it('accepts an empty rules array (clears the rules)', () => {
      expect(validateSchedulerUpdate({ rules: [] })).to.deep.equal({ ok: true, value: { rules: [] } });
    });

    const bad: Array<[Record<string, unknown>, string, string]> = [
      [{ enabled: 'true' }, 'enabled', "enabled must be true or false, got string 'true'"],
      [{ enabled: null }, 'enabled', 'enabled must be true or false, got null'],
      [{ combine_mode: 'all' }, 'combine_mode', "combine_mode must be one of: ALL, ANY, got string 'all'"],
      [{ combine_mode: 'OR' }, 'combine_mode', "combine_mode must be one of: ALL, ANY, got string 'OR'"],
      [{ check_interval_seconds: 4 }, 'check_interval_seconds', 'check_interval_seconds must be an integer from 5 to 86400, got number 4'],
      [{ check_interval_seconds: 86401 }, 'check_interval_seconds', 'check_interval_seconds must be an integer from 5 to 86400, got number 86401'],
      [{ check_interval_seconds: 10.5 }, 'check_interval_seconds', 'check_interval_seconds must be an integer from 5 to 86400, got number 10.5'],
      [{ check_interval_seconds: '60' }, 'check_interval_seconds', "check_interval_seconds must be an integer from 5 to 86400, got string '60'"],
      [{ unavailable_policy: 'ignore' }, 'unavailable_policy', "unavailable_policy must be one of: fail, pass, got string 'ignore'"],
      [{ rules: {} }, 'rules', 'rules must be an array of rules, got an object'],
      [{ foo: 1 }, 'foo', "unknown field 'foo'; allowed: enabled, combine_mode, check_interval_seconds, unavailable_policy, rules"],
    ];
    for (const [body, path, message] of bad) {
      it(`rejects ${JSON.stringify(body)}`, () => {
        expect(errorsOf(body)).to.deep.equal([{ path, message }]);
      });
    }

    it('accepts the interval bounds 5 and 86400', () => {
      expect(validateSchedulerUpdate({ check_interval_seconds: 5 }).ok).to.equal(true);
      expect(validateSchedulerUpdate({ check_interval_seconds: 86400 }).ok).to.equal(true);
    });

    it('rejects conditions_met echoed back from GET, saying it is computed', () => {
      expect(errorsOf({ conditions_met: true })[0]?.message).to.match(/^unknown field 'conditions_met' \(computed by GET/);
    });

    it('caps the number of rules at 50', () => {
      const rule = { rule: 'cpu_idle', operator: '>=', value: 1 };
      expect(validateSchedulerUpdate({ rules: Array.from({ length: 50 }, () => rule) }).ok).to.equal(true);
      expect(errorsOf({ rules: Array.from({ length: 51 }, () => rule) })).to.deep.equal([
        { path: 'rules', message: 'rules may hold at most 50 rules, got 51' },
      ]);
    });

    for (const body of [null, [], 'enabled', 42]) {
      it(`rejects a body that is not an object: ${JSON.stringify(body)}`, () => {
        const errors = errorsOf(body);
        expect(errors).to.have.length(1);
        expect(errors[0]?.path).to.equal('');
        expect(errors[0]?.message).to.match(/^body must be a JSON object, got /);
      });
    }
  });
});

describe('validateSchedulerConfig', () => {
  const complete = {
    enabled: true,
    combine_mode: 'ALL',
    check_interval_seconds: 30,
    unavailable_policy: 'fail',
    rules: [{ rule: 'time_window', operator: 'in', value: '22:00-06:00' }],
  };

  it('accepts a complete configuration and normalises rules', () => {
    const result = validateSchedulerConfig(complete);
    expect(result).to.deep.equal({
      ok: true,
      value: { ...complete, rules: [{ rule: 'time_window', operator: 'in', value: '22:00-06:00', enabled: true }] },
    });
  });

  it('names each missing field', () => {
    const result = validateSchedulerConfig({ enabled: true, rules: [] });
    expect(result.ok).to.equal(false);
    if (result.ok) return;
    expect(result.errors.map((e) => e.path).sort()).to.deep.equal(['check_interval_seconds', 'combine_mode', 'unavailable_policy']);
  });

  it('applies the same field checks as an update', () => {
    const result = validateSchedulerConfig({ ...complete, rules: [{ rule: 'cpu_percent', operator: '==', value: 1 }] });
    expect(result.ok).to.equal(false);
    if (result.ok) return;
    expect(result.errors[0]?.message).to.equal("rules[0] (cpu_percent): operator '==' is not allowed; allowed: <=, >=");
  });
});

describe('formatValidationErrors', () => {
  it('joins the messages in order', () => {
    expect(
      formatValidationErrors([
        { path: 'a', message: 'first' },
        { path: 'b', message: 'second' },
      ]),
    ).to.equal('first; second');
  });
});

describe('describeValue', () => {
  it('shows type and value, shortening long strings', () => {
    expect(describeValue(null)).to.equal('null');
    expect(describeValue([1])).to.equal('an array');
    expect(describeValue({})).to.equal('an object');
    expect(describeValue(3)).to.equal('number 3');
    expect(describeValue(false)).to.equal('boolean false');
    expect(describeValue('x'.repeat(50))).to.equal(`string '${'x'.repeat(40)}…'`);
  });
});
