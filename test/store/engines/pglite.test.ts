import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { probeThreadMemory } from '../../../src/lib/thread-memory.js';
import { openPglite, sharedBuffersMb, type PgliteOptions } from '../../../src/store/engines/pglite.js';
import { eventually } from '../../helpers/assert.js';
import { startTestService } from '../../helpers/service.js';

/** Writes ~6 MB of incompressible rows in 12 transactions; answers the log's growth since the last checkpoint. */
async function writeAndMeasure(options: PgliteOptions): Promise<{ grown: number; maxWalSize: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'filesift-pglite-wal-'));
  const db = await openPglite(dir, options);
  try {
    await db.exec('CREATE TABLE filler (body text)');
    for (let i = 0; i < 12; i++) {
      await db.transaction(async (tx) => {
        for (let j = 0; j < 4; j++) await tx.query('INSERT INTO filler (body) VALUES ($1)', [randomBytes(96 * 1024).toString('base64')]);
      });
    }
    const { rows } = await db.query<{ grown: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::text AS grown FROM pg_control_checkpoint()');
    const setting = await db.query<{ max_wal_size: string }>('SHOW max_wal_size');
    return { grown: Number(rows[0]!.grown), maxWalSize: setting.rows[0]!.max_wal_size };
  } finally {
    await db.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('the PGlite engine', () => {
  it('checkpoints itself as the write-ahead log grows (single-user PostgreSQL has no checkpointer)', async () => {
    const bounded = await writeAndMeasure({ walCheckpointBytes: 1024 * 1024, walCheckEvery: 1 });
    expect(bounded.maxWalSize).to.equal('32MB');
    // At most the limit plus one transaction (~0.5 MB) since the last checkpoint.
    expect(bounded.grown).to.be.below(2 * 1024 * 1024);
    // The same writes without a checkpoint in reach: the whole ~6 MB is still in the log.
    const unbounded = await writeAndMeasure({ walCheckpointBytes: 1024 * 1024 * 1024, walCheckEvery: 1 });
    expect(unbounded.grown).to.be.above(5 * 1024 * 1024);
  });

  it('hands a due checkpoint to runCheckpoint instead of running it inside the transaction, when given one', async () => {
    const handed: (() => Promise<void>)[] = [];
    const deferred = await writeAndMeasure({ walCheckpointBytes: 1024 * 1024, walCheckEvery: 1, runCheckpoint: (c) => handed.push(c) });
    // Twelve transactions, each checked; none checkpointed by itself: the whole ~6 MB is still in the log.
    expect(handed).to.have.length(12);
    expect(deferred.grown).to.be.above(5 * 1024 * 1024);
    // Run when handed (as the store worker's gate does, a call later), they bound the log as before.
    const bounded = await writeAndMeasure({ walCheckpointBytes: 1024 * 1024, walCheckEvery: 1, runCheckpoint: (c) => void c() });
    expect(bounded.grown).to.be.below(2 * 1024 * 1024);
  });

  it('keeps two segments of log on disk after a checkpoint, however much was written before it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'filesift-pglite-wal-'));
    // Our own trigger out of reach: ~75 MB of log since the last checkpoint, then one.
    const db = await openPglite(dir, { walCheckpointBytes: 1024 * 1024 * 1024, walCheckEvery: 1 });
    try {
      await db.exec('CREATE TABLE filler (body text)');
      for (let i = 0; i < 60; i++) {
        await db.query(`INSERT INTO filler (body) SELECT md5(g::text) || repeat(md5((g * ${i + 1})::text), 16) FROM generate_series(1, 2000) AS g`);
      }
      const { rows } = await db.query<{ grown: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::text AS grown FROM pg_control_checkpoint()');
      expect(Number(rows[0]!.grown)).to.be.above(64 * 1024 * 1024);
      await db.exec('CHECKPOINT');
      const segments = (await readdir(path.join(dir, 'pg_wal'))).filter((name) => /^[0-9A-F]{24}$/.test(name));
      expect(segments.length).to.be.at.most(2);
    } finally {
      await db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('sizes shared_buffers from the database on disk: the floor for a new one, more as it grows, the default beyond', async () => {
    const MB = 1024 * 1024;
    expect(sharedBuffersMb(0)).to.equal(16);
    expect(sharedBuffersMb(20 * MB)).to.equal(48);
    expect(sharedBuffersMb(64 * MB)).to.equal(128);
    expect(sharedBuffersMb(1023 * MB)).to.equal(128);
    expect(sharedBuffersMb(1024 * MB)).to.equal(128);
    expect(sharedBuffersMb(10_000 * MB)).to.equal(128);

    const dir = await mkdtemp(path.join(tmpdir(), 'filesift-pglite-buffers-'));
    const shown = async (db: Awaited<ReturnType<typeof openPglite>>) => (await db.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0]!.shared_buffers;
    try {
      let db = await openPglite(dir);
      expect(db.sharedBuffersMb).to.equal(16);
      expect(await shown(db)).to.equal('16MB');
      // ~24 MB of text stored as is (no compression; ~40 MB on disk), then a reopen: more than the floor, less than the default.
      await db.exec('CREATE TABLE filler (body text); ALTER TABLE filler ALTER COLUMN body SET STORAGE EXTERNAL');
      await db.query(`INSERT INTO filler (body) SELECT string_agg(md5((g * 1000 + i)::text), '') FROM generate_series(1, 3000) AS g, generate_series(1, 250) AS i GROUP BY g`);
      await db.exec('CHECKPOINT');
      await db.close();
      db = await openPglite(dir);
      try {
        expect(db.sharedBuffersMb).to.be.above(16).and.below(128);
        expect(await shown(db)).to.equal(`${db.sharedBuffersMb}MB`);
        const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM filler');
        expect(rows[0]!.n).to.equal(3000);
      } finally {
        await db.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("the service's store opens with FILESIFT_SHARED_BUFFERS_MB when it is set (its WASM memory holds them)", async () => {
    const sized = await startTestService('pglite');
    const set = await startTestService('pglite', { FILESIFT_SHARED_BUFFERS_MB: '256' });
    try {
      // Both stores answer in one probe; tell them apart by size: one near 128 MB (16 MB of buffers), one above 256 MB.
      const sizes = await eventually(async () => {
        const answers = (await probeThreadMemory(1000)).filter((t) => t.role === 'store').map((t) => t.wasm);
        if (answers.length !== 2) throw new Error(`${answers.length} of the 2 stores answered the probe`);
        return answers.sort((a, b) => a - b);
      });
      expect(sizes[0]).to.be.below(200 * 1024 * 1024);
      expect(sizes[1]).to.be.above(256 * 1024 * 1024);
    } finally {
      await set.destroy();
      await sized.destroy();
    }
  });
});
