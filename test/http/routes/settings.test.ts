import { expect } from 'chai';
import { defaultSettings } from '../../../src/settings/schema.js';
import { forEachEngine } from '../../helpers/engines.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { openEventStream } from '../../helpers/sse.js';

forEachEngine('settings routes', (engine) => {
  let t: TestService;
  before(async () => {
    t = await startTestService(engine);
  });
  after(() => t.destroy());

  it('GET /api/settings/ answers every section, with and without the trailing slash', async () => {
    const a = await t.request('GET', '/api/settings/');
    const b = await t.request('GET', '/api/settings');
    expect(a.status).to.equal(200);
    expect(a.body).to.deep.equal(b.body);
    expect(a.body).to.have.all.keys('summarizer', 'queue', 'indexing', 'search', 'scheduler');
    expect(a.body.indexing).to.have.all.keys('max_file_size_mb', 'max_text_chars', 'file_timeout_seconds');
    expect(a.body.queue).to.have.all.keys('cooldown_seconds', 'max_concurrency', 'max_retries');
    expect(a.body.scheduler).to.have.all.keys('enabled', 'combine_mode', 'check_interval_seconds', 'unavailable_policy', 'rules');
    expect(a.body.summarizer).to.include.keys('provider', 'model');
  });

  it('GET /api/settings/defaults answers the defaults in the same grouped shape', async () => {
    const res = await t.request('GET', '/api/settings/defaults');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal(defaultSettings());
  });

  it('PUT applies a partial dotted update, answers the full object, and publishes settings_changed', async () => {
    const stream = await openEventStream(`${t.url}/api/updates`);
    try {
      const res = await t.request('PUT', '/api/settings/', { 'queue.cooldown_seconds': 5.5, 'scheduler.enabled': true });
      expect(res.status).to.equal(200);
      expect(res.body).to.have.nested.property('queue.cooldown_seconds', 5.5);
      expect(res.body).to.have.nested.property('scheduler.enabled', true);
      expect(res.body).to.have.nested.property('queue.max_retries', defaultSettings().queue.max_retries);
      const event = await stream.next((e) => e.event === 'settings_changed');
      expect(JSON.parse(event.data).keys).to.deep.equal(['queue.cooldown_seconds', 'scheduler.enabled']);
    } finally {
      stream.close();
    }
  });

  it('PUT with any bad key changes nothing and answers 400 naming each problem', async () => {
    const before = (await t.request('GET', '/api/settings')).body;
    const res = await t.request('PUT', '/api/settings', {
      'queue.max_retries': 4,
      'queue.max_concurrency': 0,
      'summarizer.provider': 'skynet',
      'nope': 1,
    });
    expect(res.status).to.equal(400);
    expect(res.body).to.include({ success: false, code: 'invalid_request' });
    const errors = res.body.errors as string[];
    expect(errors).to.have.length(3);
    expect(res.body.message).to.match(/queue\.max_concurrency must be an integer from 1 to 256, got 0/);
    expect(res.body.message).to.match(/summarizer\.provider must be one of "local", "ollama", "openai"/);
    expect(res.body.message).to.match(/unknown setting 'nope'/);
    expect((await t.request('GET', '/api/settings')).body).to.deep.equal(before);
  });

  it('PUT rejects a body that is not a non-empty object', async () => {
    for (const body of [[], {}, '"text"']) {
      const res = await t.request('PUT', '/api/settings/', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.success).to.equal(false);
    }
  });

  it('keeps settings across a restart', async () => {
    await t.request('PUT', '/api/settings/', { 'queue.max_retries': 9, 'scheduler.combine_mode': 'ANY' });
    t = await t.restart();
    const res = await t.request('GET', '/api/settings/');
    expect(res.body).to.have.nested.property('queue.max_retries', 9);
    expect(res.body).to.have.nested.property('scheduler.combine_mode', 'ANY');
  });
});
