import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.js';
import { InstanceLockedError } from '../src/lib/instance-lock.js';
import { createLogger } from '../src/logger.js';
import { startService } from '../src/service.js';
import { beginService } from '../src/service-start.js';
import { expectRejection } from './helpers/assert.js';

describe('service start begun before the service loads (beginService)', () => {
  let dataDir: string;
  const config = (env: Record<string, string> = {}) =>
    loadConfig({ HOST: '127.0.0.1', PORT: '0', FILESIFT_DATA_DIR: dataDir, LOG_LEVEL: 'silent', FILESIFT_MODEL_PULL: 'off', ...env });

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'filesift-begin-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('holds the lock and answers 503 while the store opens; startService takes over its port, lock and store thread', async () => {
    const cfg = config();
    const begun = beginService(cfg);
    const { server, storeThread } = await begun;
    expect(storeThread, 'PGlite is opening on its thread').to.not.equal(null);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const starting = await fetch(`${url}/api/status/`);
    expect(starting.status).to.equal(503);
    // A second start on the same data directory is refused before it opens anything.
    await expectRejection(beginService(config()), InstanceLockedError);

    const service = await startService(cfg, { logger: createLogger('silent'), begun });
    try {
      expect(service.url).to.equal(url);
      const status = (await (await fetch(`${url}/api/status/`)).json()) as { database: { engine: string; ok: boolean } };
      expect(status.database).to.include({ engine: 'pglite', ok: true });
    } finally {
      await service.close('test');
    }
    // Closing released the lock: the data directory can be started again.
    const again = await startService(config(), { logger: createLogger('silent') });
    await again.close('test');
  });

  it('a taken port is refused before the store opens, and the lock is released', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    try {
      const port = String((taken.address() as AddressInfo).port);
      await expectRejection(beginService(config({ PORT: port })), /EADDRINUSE/);
      const begun = await beginService(config());
      expect(begun.storeThread).to.not.equal(null);
      await startService(config(), { logger: createLogger('silent'), begun: Promise.resolve(begun) }).then((s) => s.close('test'));
    } finally {
      taken.close();
    }
  });
});
