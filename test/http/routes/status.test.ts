import { expect } from 'chai';
import { eventually } from '../../helpers/assert.js';
import { forEachEngine } from '../../helpers/engines.js';
import { startTestService, type TestService } from '../../helpers/service.js';

forEachEngine('GET /api/status/', (engine) => {
  let t: TestService;
  before(async () => {
    t = await startTestService(engine);
  });
  after(() => t.destroy());

  it('reports health from a real database round trip', async () => {
    const res = await t.request('GET', '/api/status/');
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ status: 'ok', jobs: 0, version: t.config.version });
    expect(res.body.uptime_seconds).to.be.a('number');
    const db = res.body.database as Record<string, unknown>;
    expect(db).to.include({ engine, reachable: true, ok: true });
    expect(db.latency_ms).to.be.a('number').and.at.least(0);
    expect(db.server_version).to.match(engine === 'pglite' ? /^1[5-9]/ : /^\d+/);
    expect(db.schema_version).to.be.a('number').and.greaterThan(0);
    expect((await t.request('GET', '/api/status')).status).to.equal(200);
  });

  it('says ready once start-up is over (every watched folder watched live)', async () => {
    const ready = await eventually(async () => ((await t.request('GET', '/api/status/')).body.ready === true ? true : null));
    expect(ready).to.equal(true);
  });
});
