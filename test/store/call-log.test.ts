/**
 * src/store/call-log.ts: the figures of the store's calls (own time per kind, the longest background calls, what
 * a waiting search waited behind), kept by the gate on PGlite and by the timing wrapper on PostgreSQL, and exposed
 * by the store's handle (spawnStore) on both engines.
 */
import { expect } from 'chai';
import { CallGate, wallClock, type CallPriority } from '../../src/store/call-gate.js';
import { CallLog, KEPT } from '../../src/store/call-log.js';
import { createLogger } from '../../src/logger.js';
import { spawnStore, type StoreHandle } from '../../src/store/spawn.js';
import { createScratchDatabase, forEachEngine, type ScratchDatabase } from '../helpers/engines.js';
import { indexedFileWrite } from '../helpers/store.js';

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A call of `kind` that holds the gate until the second one (quick) has arrived and waited; both answered. */
async function oneBehindAnother(first: CallPriority, firstKind: string, secondKind: string): Promise<CallGate> {
  const gate = new CallGate();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = gate.run(first, () => released, firstKind);
  await tick();
  const quick = gate.run('interactive', () => Promise.resolve('hits'), secondKind);
  await tick();
  release();
  await held;
  expect(await quick).to.equal('hits');
  return gate;
}

describe('CallLog', () => {
  it('sums each kind and keeps the longest background calls, longest first, at most KEPT', () => {
    const log = new CallLog();
    for (let i = 1; i <= KEPT + 5; i++) log.ran('files.saveIndexed', 'background', i);
    log.ran('search.keyword', 'interactive', 500);
    const figures = log.figures();
    expect(figures.kinds['files.saveIndexed']).to.deep.equal({ priority: 'background', calls: KEPT + 5, totalMs: ((KEPT + 5) * (KEPT + 6)) / 2, longestMs: KEPT + 5 });
    expect(figures.kinds['search.keyword']).to.deep.equal({ priority: 'interactive', calls: 1, totalMs: 500, longestMs: 500 });
    // Interactive calls are not background calls, however long.
    expect(figures.longestBackground.map((c) => c.ms)).to.deep.equal(Array.from({ length: KEPT }, (_, i) => KEPT + 5 - i));
  });

  it('names, through the gate, the call a waiting search waited behind', async () => {
    const gate = await oneBehindAnother('background', 'files.saveIndexed', 'search.keyword');
    const { kinds, longestBackground, longestWaits } = gate.figures();
    expect(Object.keys(kinds).sort()).to.deep.equal(['files.saveIndexed', 'search.keyword']);
    expect(longestBackground).to.have.length(1);
    expect(longestBackground[0]!.kind).to.equal('files.saveIndexed');
    expect(longestWaits).to.have.length(1);
    const [wait] = longestWaits;
    expect(wait!.kind).to.equal('search.keyword');
    expect(wait!.behind?.kind).to.equal('files.saveIndexed');
    // It arrived after the write started: only the rest of the write counts against it.
    expect(wait!.backgroundMs).to.be.greaterThan(0);
    expect(wait!.backgroundMs).to.be.at.most(wait!.behind!.ms);
    expect(wait!.waitedMs).to.be.at.least(wait!.backgroundMs);
  });

  it('dates a wait from the send: a call that waited in the port while a write blocked the thread', async () => {
    const gate = new CallGate();
    // Sent before the write started, read by the store's thread only after it ended (a blocked thread reads no message).
    const sentAt = wallClock();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await gate.run('background', () => new Promise((resolve) => setTimeout(resolve, 20)), 'files.saveIndexed');
    await gate.run('interactive', () => Promise.resolve(), 'search.keyword', sentAt);
    const [write] = gate.figures().longestBackground;
    const [wait] = gate.figures().longestWaits;
    expect(wait).to.deep.include({ kind: 'search.keyword', backgroundMs: write!.ms, behind: write });
    expect(wait!.waitedMs).to.be.greaterThan(write!.ms);
  });

  it('counts a wait behind another interactive call (the other half of a search) as no background time', async () => {
    const gate = await oneBehindAnother('interactive', 'search.keyword', 'search.semantic');
    const waits = gate.figures().longestWaits;
    expect(waits.map((w) => [w.kind, w.backgroundMs, w.behind])).to.have.deep.members([
      ['search.keyword', 0, null],
      ['search.semantic', 0, null],
    ]);
    expect(waits.find((w) => w.kind === 'search.semantic')!.waitedMs).to.be.greaterThan(0);
  });
});

forEachEngine('the store handle’s call figures', (engine) => {
  let handle: StoreHandle;
  let scratch: ScratchDatabase | null = null;
  before(async () => {
    scratch = engine === 'postgres' ? await createScratchDatabase() : null;
    handle = await spawnStore({ databaseUrl: scratch?.url ?? null, dataDir: null, logger: createLogger('silent') });
  });
  after(async () => {
    await handle.close();
    await scratch?.drop();
  });

  it('counts every call by kind and priority, with sane own times', async () => {
    for (let i = 0; i < 3; i++) await handle.api.health.ping();
    await Promise.all([0, 1].map((i) => handle.api.files.saveIndexed(indexedFileWrite(`/d/${i}.txt`, [new Float32Array(4).fill(0.5)]))));
    const { kinds, longestBackground, longestWaits } = await handle.calls();
    expect(kinds['health.ping']).to.include({ priority: 'interactive', calls: 3 });
    expect(kinds['files.saveIndexed']).to.include({ priority: 'background', calls: 2 });
    for (const figures of Object.values(kinds)) {
      expect(figures.longestMs).to.be.at.least(0);
      expect(figures.totalMs).to.be.at.least(figures.longestMs);
      expect(figures.totalMs).to.be.at.most(figures.longestMs * figures.calls + 1e-9);
    }
    expect(longestBackground.map((c) => c.kind)).to.deep.equal(['files.saveIndexed', 'files.saveIndexed']);
    expect(longestBackground[0]!.ms).to.equal(kinds['files.saveIndexed']!.longestMs);
    // Only the embedded engine runs one call at a time: only there does a call wait for the store.
    if (engine === 'pglite') expect(longestWaits.map((w) => w.kind)).to.include('health.ping');
    else expect(longestWaits).to.deep.equal([]);
  });
});
