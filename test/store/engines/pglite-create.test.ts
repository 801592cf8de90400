import { expect } from 'chai';
import { fork } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { workerPath } from '../../../src/paths.js';
import { ensurePgliteCreated } from '../../../src/store/engines/pglite-create.js';
import { INITDB_ARGS } from '../../../src/store/engines/pglite-initdb.js';
import { openPglite } from '../../../src/store/engines/pglite.js';
import { eventually } from '../../helpers/assert.js';

const MB = 1024 * 1024;

describe('creating a new PGlite database (a child process, renamed into place)', function () {
  this.timeout(180_000);
  let parent: string;
  let dataDir: string;

  beforeEach(async () => {
    parent = await mkdtemp(path.join(tmpdir(), 'filesift-pglite-create-'));
    dataDir = path.join(parent, 'pglite');
  });
  afterEach(() => rm(parent, { recursive: true, force: true }));

  async function expectWorkingDatabase(): Promise<void> {
    const db = await openPglite(dataDir);
    try {
      expect((await db.query<{ extname: string }>("SELECT extname FROM pg_extension WHERE extname = 'vector'")).rows).to.have.length(1);
      await db.exec('CREATE TABLE t (v vector(2)); INSERT INTO t VALUES (\'[1,2]\')');
      expect((await db.query<{ v: string }>('SELECT v::text AS v FROM t')).rows).to.deep.equal([{ v: '[1,2]' }]);
    } finally {
      await db.close();
    }
  }

  it('opens a new database it did not create itself: what initdb held is not kept by the open engine', async () => {
    const before = process.memoryUsage().external;
    expect(await ensurePgliteCreated(dataDir, { templateDir: null })).to.equal('initdb');
    const db = await openPglite(dataDir);
    try {
      // Created in this process, the instance kept ~500 MB of initdb's WASM memory; created by the child, the
      // open engine holds its own WASM memory (~130 MB with 16 MB of shared_buffers) and little else.
      expect(process.memoryUsage().external - before).to.be.below(300 * MB);
      expect(await readdir(dataDir)).to.include('PG_VERSION');
      expect(await readdir(parent)).to.deep.equal(['pglite']); // no creation folder left beside it
    } finally {
      await db.close();
    }
    await expectWorkingDatabase();
  });

  it('recovers from a creation killed half-way: the leftover folder is never taken for a database, and goes', async () => {
    // The real child, killed with SIGKILL once it has begun writing the database.
    const creating = path.join(parent, 'pglite.creating-killed');
    await mkdir(creating);
    const child = fork(workerPath('pglite-create.process'), [creating, JSON.stringify(INITDB_ARGS)], { execArgv: [], stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
    await eventually(async () => (await readdir(creating)).length > 0, 120_000, 5);
    child.kill('SIGKILL');
    expect(await exited).to.equal('SIGKILL');

    await expectWorkingDatabase();
    expect(await readdir(parent)).to.deep.equal(['pglite']);
  });

  it('creates the database in an empty data directory', async () => {
    await mkdir(dataDir);
    expect(await ensurePgliteCreated(dataDir, { templateDir: null })).to.equal('initdb');
    await expectWorkingDatabase();
  });

  it('refuses a data directory that holds files but no database, naming it, and leaves it as it was', async () => {
    await mkdir(dataDir);
    await writeFile(path.join(dataDir, 'notes.txt'), 'mine');
    let error: Error | null = null;
    await openPglite(dataDir).catch((err: Error) => (error = err));
    expect(error).to.be.an('error');
    expect(error!.message).to.include(dataDir).and.include('not a database');
    expect(await readdir(dataDir)).to.deep.equal(['notes.txt']);
    expect(await readFile(path.join(dataDir, 'notes.txt'), 'utf8')).to.equal('mine');
    expect(await readdir(parent)).to.deep.equal(['pglite']);
  });

  it('reports a creation that fails with its reason, and leaves nothing behind', async () => {
    // initdb refuses a setting PostgreSQL does not know: the child fails and says why.
    let error: Error | null = null;
    await ensurePgliteCreated(dataDir, { initdbArgs: ['-c', 'no_such_parameter=1'], templateDir: null }).catch((err: Error) => (error = err));
    expect(error).to.be.an('error');
    expect(error!.message).to.include(`creating the embedded database in ${dataDir} failed`).and.include('INITDB failed to initialize');
    expect(await readdir(parent)).to.deep.equal([]);
  });

  it('reports a creation that takes too long, stopping it, and leaves nothing behind', async () => {
    let error: Error | null = null;
    await ensurePgliteCreated(dataDir, { timeoutMs: 1, templateDir: null }).catch((err: Error) => (error = err));
    expect(error).to.be.an('error');
    expect(error!.message).to.include('took longer than').and.include('it was stopped');
    expect(await readdir(parent)).to.deep.equal([]);
  });
});
