import { expect } from 'chai';
import { MAX_BODY_DEPTH, nestingDepth } from '../../../src/http/middleware/body.js';
import { forEachEngine } from '../../helpers/engines.js';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('nestingDepth', () => {
  it('measures how deeply arrays and objects nest, iteratively (no stack to overflow)', () => {
    expect(nestingDepth('x')).to.equal(0);
    expect(nestingDepth({ a: [1, { b: 2 }] })).to.equal(3);
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;
    expect(nestingDepth(deep, MAX_BODY_DEPTH)).to.be.greaterThan(MAX_BODY_DEPTH);
  });
});

/** Every endpoint that takes a body, with a field it knows holding the deep value (validators recurse into those). */
const ENDPOINTS: [string, string, (deep: string) => string][] = [
  ['POST', '/api/search/', (d) => `{"query": "x", "filters": {"extension": ${d}}}`],
  ['POST', '/api/search/', (d) => `{"query": ${d}}`],
  ['PUT', '/api/settings/', (d) => `{"scheduler.rules": ${d}}`],
  ['PUT', '/api/queue/scheduler', (d) => `{"rules": ${d}}`],
  ['PUT', '/api/filters/config', (d) => `{"exclude": ${d}}`],
  ['POST', '/api/filters/pattern', (d) => `{"pattern": ${d}, "list": "exclude"}`],
  ['DELETE', '/api/filters/pattern', (d) => `{"pattern": ${d}, "list": "exclude"}`],
  ['POST', '/api/filters/test', (d) => `{"path": ${d}}`],
  ['POST', '/api/filters/apply', (d) => `{"x": ${d}}`],
  ['POST', '/api/filters/reset', (d) => d],
  ['POST', '/api/watch/', (d) => `{"directory_path": ${d}}`],
  ['POST', '/api/index/file', (d) => `{"file_path": ${d}}`],
  ['POST', '/api/index/directory', (d) => `{"directory_path": ${d}}`],
  ['POST', '/api/queue/pause', (d) => d],
];

forEachEngine('request bodies nested 20,000 deep (over real HTTP)', (engine) => {
  let t: TestService;
  before(async () => {
    t = await startTestService(engine);
  });
  after(() => t.destroy());

  it('are a 400 naming the limit on every endpoint that takes a body, never a 500', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    for (const [method, route, body] of ENDPOINTS) {
      const res = await t.request(method, route, body(deep));
      expect(res.status, `${method} ${route}`).to.equal(400);
      expect(res.body).to.include({ success: false, code: 'invalid_request' });
      expect(res.body.message, `${method} ${route}`).to.match(new RegExp(`nested more than ${MAX_BODY_DEPTH} levels deep`));
    }
    // The service is unharmed.
    expect((await t.request('GET', '/api/status/')).body.status).to.equal('ok');
  });

  it('lets ordinary nesting through to the route (its own validation answers)', async () => {
    const res = await t.request('PUT', '/api/queue/scheduler', { rules: [{ rule: 'time_window', operator: 'in', value: '22:00-06:00' }] });
    expect(res.status).to.equal(200);
  });
});
