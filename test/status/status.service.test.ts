import { expect } from 'chai';
import { spawnStore } from '../../src/store/spawn.js';
import { createLogger } from '../../src/logger.js';
import { StatusService } from '../../src/status/status.service.js';

describe('StatusService', () => {
  it('is degraded when a component reports a problem, and shows each component at the top level', async () => {
    const store = await spawnStore({ databaseUrl: null, dataDir: null, logger: createLogger('silent') });
    try {
      const embedder = { health: () => ({ ok: true, model: 'm' }) };
      expect((await new StatusService(store, '1.2.3', { embedder }).check()).status).to.equal('ok');
      const brokenPool = {
        health: () => {
          throw new Error('pool is gone');
        },
      };
      const report = await new StatusService(store, '1.2.3', { embedder, worker_pool: brokenPool }).check();
      expect(report.status).to.equal('degraded');
      expect(report.embedder).to.deep.equal({ ok: true, model: 'm' });
      expect(report.worker_pool).to.deep.equal({ ok: false, error: 'pool is gone' });
    } finally {
      await store.close();
    }
  });

  it('is degraded, not failing, when the database cannot be reached', async () => {
    const store = await spawnStore({ databaseUrl: null, dataDir: null, logger: createLogger('silent') });
    await store.close();
    const report = await new StatusService(store, '1.2.3').check();
    expect(report.status).to.equal('degraded');
    expect(report.database).to.include({ reachable: false, ok: false, latency_ms: null });
    expect(report.database.error).to.be.a('string');
    expect(report.jobs).to.equal(null);
  });
});
