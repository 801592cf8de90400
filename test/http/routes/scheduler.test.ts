import { expect } from 'chai';
import { available, unavailable } from '../../../src/actors/scheduler/readings.js';
import { snapshot } from '../../actors/scheduler/fixtures.js';
import { forEachEngine } from '../../helpers/engines.js';
import { startWatchService, type WatchHarness } from '../../actors/watcher/helpers.js';

forEachEngine('scheduler routes: GET/PUT /api/queue/scheduler', (engine) => {
  let h: WatchHarness;

  before(async () => {
    h = await startWatchService(engine);
  });
  after(() => h.t.destroy());
  afterEach(async () => {
    h.provider.current = snapshot();
    await h.t.request('PUT', '/api/queue/scheduler', { enabled: false, combine_mode: 'ALL', check_interval_seconds: 60, unavailable_policy: 'fail', rules: [] });
  });

  it('GET answers the configuration, conditions_met and every reading', async () => {
    const res = await h.t.request('GET', '/api/queue/scheduler');
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ enabled: false, combine_mode: 'ALL', check_interval_seconds: 60, unavailable_policy: 'fail', conditions_met: true, paused_by_scheduler: false });
    expect(res.body.rules).to.deep.equal([]);
    expect(res.body.readings).to.have.all.keys('battery_level', 'power_source', 'cpu_idle', 'cpu_percent', 'cpu_temperature', 'fan_speed');
  });

  it('PUT changes only the fields given, a rules array replaces the list, and it answers the full configuration with verdicts', async () => {
    const first = await h.t.request('PUT', '/api/queue/scheduler', {
      enabled: true,
      combine_mode: 'ANY',
      rules: [
        { rule: 'cpu_percent', operator: '<=', value: 20 },
        { rule: 'time_window', operator: 'in', value: '22:00-06:00', enabled: false },
      ],
    });
    expect(first.status).to.equal(200);
    expect(first.body).to.include({ enabled: true, combine_mode: 'ANY', check_interval_seconds: 60, conditions_met: true });
    const rules = first.body.rules as Record<string, unknown>[];
    expect(rules[0]).to.include({ rule: 'cpu_percent', operator: '<=', value: 20, enabled: true, reading: 5, available: true, passes: true });
    expect(rules[1]).to.include({ rule: 'time_window', enabled: false });
    expect(rules[1]!.detail).to.match(/rule disabled: not counted/);

    const second = await h.t.request('PUT', '/api/queue/scheduler', { check_interval_seconds: 30 });
    expect(second.body).to.include({ enabled: true, combine_mode: 'ANY', check_interval_seconds: 30 });
    expect(second.body.rules).to.have.length(2);

    const third = await h.t.request('PUT', '/api/queue/scheduler', { rules: [{ rule: 'power_source', operator: '==', value: true }] });
    expect((third.body.rules as unknown[]).length).to.equal(1);

    // The configuration lives in settings (spec 2.1): both views agree, rules stored with `enabled`.
    const settings = (await h.t.request('GET', '/api/settings/')).body.scheduler as Record<string, unknown>;
    expect(settings).to.deep.equal({
      enabled: true,
      combine_mode: 'ANY',
      check_interval_seconds: 30,
      unavailable_policy: 'fail',
      rules: [{ rule: 'power_source', operator: '==', value: true, enabled: true }],
    });
    expect(h.events.some((e) => e.type === 'settings_changed' && (e.data as { keys: string[] }).keys.includes('scheduler.rules'))).to.equal(true);
  });

  it('rejects an operator or value not allowed for the rule type, naming the rule, and changes nothing', async () => {
    const cases: [unknown, RegExp][] = [
      [{ rules: [{ rule: 'cpu_percent', operator: '==', value: 10 }] }, /rules\[0\] \(cpu_percent\): operator '==' is not allowed; allowed: <=, >=/],
      [{ rules: [{ rule: 'power_source', operator: '==', value: 'true' }] }, /rules\[0\] \(power_source\): value must be true or false, got string 'true'/],
      [{ rules: [{ rule: 'time_window', operator: 'in', value: '25:00-01:00' }] }, /rules\[0\] \(time_window\): value must be a local time window/],
      [{ rules: [{ type: 'battery_level', operator: '>=', value: 20 }] }, /missing field 'rule'.*unknown field 'type'/],
      [{ rules: [{ rule: 'fan_speed', operator: '>=', value: 100 }] }, /rules\[0\] \(fan_speed\): operator '>=' is not allowed; allowed: <=/],
      [{ check_interval_seconds: 2 }, /check_interval_seconds must be an integer from 5 to 86400/],
      [{ conditions_met: true }, /unknown field 'conditions_met' \(computed by GET/],
      [{ combine_mode: 'SOME' }, /combine_mode must be one of: ALL, ANY/],
    ];
    for (const [body, message] of cases) {
      const res = await h.t.request('PUT', '/api/queue/scheduler', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body, JSON.stringify(body)).to.include({ success: false, code: 'invalid_request' });
      expect(res.body.message, JSON.stringify(body)).to.match(message);
    }
    expect((await h.t.request('GET', '/api/queue/scheduler')).body).to.include({ enabled: false, combine_mode: 'ALL' });
  });

  it('PUT /api/settings/ validates scheduler rules with the same messages', async () => {
    const res = await h.t.request('PUT', '/api/settings/', { 'scheduler.rules': [{ rule: 'cpu_percent', operator: '==', value: 10 }] });
    expect(res.status).to.equal(400);
    expect(res.body.message).to.match(/scheduler\.rules\[0\] \(cpu_percent\): operator '==' is not allowed; allowed: <=, >=/);
    const ok = await h.t.request('PUT', '/api/settings/', { 'scheduler.rules': [{ rule: 'cpu_idle', operator: '>=', value: 60 }], 'scheduler.enabled': true });
    expect(ok.status).to.equal(200);
    const scheduler = (await h.t.request('GET', '/api/queue/scheduler')).body;
    expect(scheduler.enabled).to.equal(true);
    expect(scheduler.rules).to.have.length(1);
    expect((scheduler.rules as Record<string, unknown>[])[0]).to.include({ rule: 'cpu_idle', enabled: true, reading: 120, passes: true });
  });

  it('shows a metric this machine cannot read as unavailable, with the policy that decided, never silently passing', async () => {
    h.provider.current = snapshot({ fan_speed: unavailable('no /sys/class/hwmon'), cpu_percent: available(10) });
    const res = await h.t.request('PUT', '/api/queue/scheduler', { enabled: true, rules: [{ rule: 'fan_speed', operator: '<=', value: 3000 }, { rule: 'cpu_percent', operator: '<=', value: 50 }] });
    expect(res.body).to.include({ conditions_met: false, paused_by_scheduler: true, unavailable_policy: 'fail' });
    const fan = (res.body.rules as Record<string, unknown>[])[0]!;
    expect(fan).to.include({ available: false, reading: null, passes: false });
    expect(fan.detail).to.match(/fan_speed unavailable: no \/sys\/class\/hwmon.*unavailable_policy 'fail'/);
    expect(h.t.service.queue.status().scheduler_paused).to.equal(true);

    const pass = await h.t.request('PUT', '/api/queue/scheduler', { unavailable_policy: 'pass' });
    expect(pass.body).to.include({ conditions_met: true, paused_by_scheduler: false });
    expect((pass.body.rules as Record<string, unknown>[])[0]).to.include({ available: false, passes: true });
    expect(h.t.service.queue.status().scheduler_paused).to.equal(false);
  });

  it('ALL needs every enabled rule, ANY one; disabling the scheduler releases its pause', async () => {
    h.provider.current = snapshot({ cpu_percent: available(80), battery_level: available(90) });
    const rules = [
      { rule: 'cpu_percent', operator: '<=', value: 50 },
      { rule: 'battery_level', operator: '>=', value: 30 },
    ];
    const all = await h.t.request('PUT', '/api/queue/scheduler', { enabled: true, combine_mode: 'ALL', rules });
    expect(all.body).to.include({ conditions_met: false, paused_by_scheduler: true });
    const any = await h.t.request('PUT', '/api/queue/scheduler', { combine_mode: 'ANY' });
    expect(any.body).to.include({ conditions_met: true, paused_by_scheduler: false });
    await h.t.request('PUT', '/api/queue/scheduler', { combine_mode: 'ALL' });
    expect(h.t.service.queue.status().scheduler_paused).to.equal(true);
    const off = await h.t.request('PUT', '/api/queue/scheduler', { enabled: false });
    expect(off.body).to.include({ enabled: false, paused_by_scheduler: false });
    expect(h.t.service.queue.status().scheduler_paused).to.equal(false);
    const status = (await h.t.request('GET', '/api/status/')).body;
    expect(status.scheduler).to.include({ ok: true, enabled: false, paused_queue: false, rules: 2 });
  });
});
