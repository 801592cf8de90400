import { expect } from 'chai';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { indexDirectory, search, startBenchService, startDirectoryRun, type BenchService } from '../../../bench/lib/bench-service.js';
import { expectRejection } from '../../helpers/assert.js';
import { forEachEngine } from '../../helpers/engines.js';
import { tempTree, type TempTree } from '../../helpers/files.js';

forEachEngine('startBenchService', (engine) => {
  let bench: BenchService | null = null;
  let tree: TempTree;

  beforeEach(async () => {
    tree = await tempTree({
      'a/photosynthesis.txt': 'Photosynthesis in plants\n\nChlorophyll absorbs light to make sugar from carbon dioxide.',
      'a/volcano.txt': 'Volcanoes\n\nMagma rises through the crust and erupts as lava.',
      'b/tides.txt': 'Tides\n\nThe moon pulls the oceans, raising tides twice a day.',
    });
    bench = await startBenchService(engine === 'postgres' ? { pgUrl: process.env.TEST_DATABASE_URL! } : {});
  });

  afterEach(async () => {
    await bench?.close();
    bench = null;
    await tree.remove();
  });

  it('indexes a folder through the HTTP API, waits for its run and searches it', async () => {
    expect(bench!.engine).to.equal(engine);
    const run = await indexDirectory(bench!, tree.root, true);
    expect(run).to.include({ indexed: 3, skipped: 0, failed: 0, totalFiles: 3 });
    expect(run.seconds).to.be.greaterThan(0);
    const answer = await search(bench!, { query: 'chlorophyll light', mode: 'keyword' });
    expect(answer.mode).to.equal('keyword');
    expect(answer.results.map((r) => r.file.filename)).to.deep.equal(['photosynthesis.txt']);
    expect(answer.took_ms).to.be.a('number');
    expect(await bench!.databaseBytes()).to.be.greaterThan(100_000);

    const again = await indexDirectory(bench!, tree.root, false);
    expect(again).to.include({ indexed: 0, skipped: 3, totalFiles: 3 });
  });

  it('answers a started run at once, its counts when it completes', async () => {
    const { runId, done } = await startDirectoryRun(bench!, tree.root, true);
    expect(runId).to.be.a('string').and.not.equal('');
    expect(await done).to.include({ indexed: 3, failed: 0 });
  });

  it('rejects with the HTTP answer when the run cannot start', async () => {
    await expectRejection(indexDirectory(bench!, tree.path('missing'), true), /POST \/api\/index\/directory: HTTP 4\d\d/);
  });

  it('cleans up after itself on close', async () => {
    const { dataDir, databaseUrl } = bench!;
    expect(databaseUrl === null).to.equal(engine === 'pglite');
    const database = databaseUrl ? new URL(databaseUrl).pathname.slice(1) : null;
    if (database) expect(await currentDatabases()).to.include(database);
    await bench!.close();
    bench = null;
    expect(existsSync(dataDir)).to.equal(false);
    if (database) expect(await currentDatabases()).to.not.include(database);
  });
});

async function currentDatabases(): Promise<string[]> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query<{ datname: string }>('SELECT datname FROM pg_database')).rows.map((r) => r.datname);
  } finally {
    await client.end();
  }
}
