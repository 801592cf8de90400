import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WorkerStoreClient, StoreUnavailableError } from '../../src/store/worker-client.js';
import { STORE_HEAP_LIMITS } from '../../src/store/thread.js';
import { createLogger } from '../../src/logger.js';
import { eventually, expectRejection } from '../helpers/assert.js';

describe('WorkerStoreClient', () => {
  let client: WorkerStoreClient | null = null;
  afterEach(async () => {
    await client?.close();
    client = null;
  });

  it('runs the store in a worker thread and mirrors its repositories', async () => {
    client = await WorkerStoreClient.start({ dataDir: null }, createLogger('silent'));
    expect(client.worker?.threadId).to.be.a('number').and.not.equal(0);
    const ping = await client.api.health.ping();
    expect(ping.schemaVersion).to.be.greaterThan(0);
    await client.api.config.save({ k: { a: 1 } });
    expect(await client.api.config.load('k')).to.deep.equal({ k: { a: 1 } });
  });

  it("starts the thread with its own young generation (not V8's machine-sized default)", async () => {
    client = await WorkerStoreClient.start({ dataDir: null }, createLogger('silent'));
    // resourceLimits reports what the running thread got: the young generation as asked, the rest V8's own.
    expect(client.worker!.resourceLimits?.maxYoungGenerationSizeMb).to.equal(STORE_HEAP_LIMITS.maxYoungGenerationSizeMb);
  });

  it('fails calls in flight when the worker dies, then restarts it', async () => {
    client = await WorkerStoreClient.start({ dataDir: null }, createLogger('silent'));
    const first = client.worker!;
    const inFlight = client.api.health.ping();
    await first.terminate();
    // The call either finished before the thread died, or fails with a clear error: it never hangs.
    await inFlight.then(
      () => undefined,
      (err: unknown) => expect(err).to.be.instanceOf(StoreUnavailableError),
    );
    await eventually(() => client!.worker && client!.worker !== first, 25_000);
    expect(client.restarts).to.equal(1);
    const ping = await client.api.health.ping();
    expect(ping.schemaVersion).to.be.greaterThan(0);
  });

  it("checkpoints the log in a background call of its own, not inside the write's call that made it due", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'filesift-store-wal-'));
    try {
      // Every transaction checks the log, and any growth is past the bound: each write makes a checkpoint due.
      client = await WorkerStoreClient.start({ dataDir: dir, wal: { checkpointBytes: 0, checkEvery: 1 } }, createLogger('silent'));
      for (let i = 0; i < 3; i++) await client.api.config.save({ [`k${i}`]: { value: 'x'.repeat(10_000) } });
      await eventually(async () => ((await client!.calls()).kinds['engine.checkpoint']?.calls ?? 0) >= 3);
      const kinds = (await client.calls()).kinds;
      expect(kinds['engine.checkpoint']!.priority).to.equal('background');
      expect(kinds['config.save']!.calls).to.equal(3);
      // Still a working store after them (what a checkpoint does is the engine's test: pglite.test.ts).
      expect(await client.api.config.load('k2')).to.deep.equal({ k2: { value: 'x'.repeat(10_000) } });
    } finally {
      await client?.close();
      client = null;
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses calls after close', async () => {
    const closing = await WorkerStoreClient.start({ dataDir: null }, createLogger('silent'));
    await closing.close();
    await expectRejection(closing.api.health.ping(), StoreUnavailableError);
  });
});
