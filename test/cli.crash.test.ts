import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openPglite } from '../src/store/engines/pglite.js';
import { eventually } from './helpers/assert.js';
import { freePort } from './helpers/ports.js';
import { repoRoot, sharedPath } from './helpers/shared.js';

const cli = path.join(repoRoot, 'dist', 'src', 'cli.js');
const FILES = 1000;

/** CI runs as root, where `filesift serve` insists on a token. */
const TOKEN = 'crash-test-token';
const auth = { authorization: `Bearer ${TOKEN}` };

interface Service {
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr: () => string;
  /** http://127.0.0.1:PORT, the port free when it started. */
  base: string;
}

/**
 * `filesift serve` on the data directory, on a port of its own: a restart does not take the port the killed process
 * had, which another process on a busy machine may have been given meanwhile (its answers would pass for ours).
 */
async function start(dataDir: string): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, [cli, 'serve'], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', FILESIFT_API_TOKEN: TOKEN, FILESIFT_MODEL_PULL: 'off', PORT: String(port), FILESIFT_DATA_DIR: dataDir },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stderr: () => stderr, base: `http://127.0.0.1:${port}` };
}

/**
 * `work`, failing at once with the service's own words if it exits meanwhile (a poll of its port would only time out,
 * saying "fetch failed"). A later exit, the test's own kill, is nobody's failure.
 */
function whileUp<T>(service: Service, work: Promise<T>): Promise<T> {
  const died = service.exited.then((code): never => {
    throw new Error(`the service exited (code ${code}) while the test waited on it; its stderr:\n${service.stderr().slice(-4000)}`);
  });
  died.catch(() => undefined);
  return Promise.race([work, died]);
}

async function json(url: string, init: RequestInit = {}): Promise<Record<string, unknown>> {
  const res = await fetch(url, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), ...auth } });
  return (await res.json()) as Record<string, unknown>;
}

describe('filesift killed with SIGKILL in the middle of a scan (a real process)', function () {
  this.timeout(600_000);
  let dataDir: string;
  let watched: string;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'filesift-crash-'));
    watched = await mkdtemp(path.join(tmpdir(), 'filesift-crash-docs-'));
    const source = sharedPath('datasets', 'scifact', 'files');
    const names = (await readdir(source)).sort().slice(0, FILES);
    await mkdir(path.join(watched, 'a'));
    await mkdir(path.join(watched, 'b'));
    await Promise.all(names.map((name, i) => copyFile(path.join(source, name), path.join(watched, i % 2 ? 'a' : 'b', name))));
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
    await rm(watched, { recursive: true, force: true });
  });

  it('restarts into a complete and consistent index: every file exactly once, chunks matching, stats adding up', async () => {
    const first = await start(dataDir);
    let killedAt = 0;
    try {
      const base = first.base;
      await whileUp(first, eventually(async () => (await fetch(`${base}/api/status/`, { headers: auth })).status === 200, 60_000, 200));
      const res = await fetch(`${base}/api/watch/`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify({ directory_path: watched }) });
      expect(res.status).to.equal(201);
      // Mid-scan: some files are in, most are not.
      killedAt = (await whileUp(first, eventually(async () => {
        const n = (await json(`${base}/api/files/stats`)).total_files as number;
        return n >= 30 ? n : null;
      }, 240_000, 100)))!;
    } finally {
      first.child.kill('SIGKILL');
    }
    expect(await first.exited).to.equal(null); // killed by a signal, no exit code
    expect(killedAt).to.be.lessThan(FILES);

    // While it is down: some files go, some arrive.
    const inA = (await readdir(path.join(watched, 'a'))).sort();
    for (const name of inA.slice(0, 10)) await rm(path.join(watched, 'a', name));
    for (let i = 0; i < 5; i++) await writeFile(path.join(watched, `new-${i}.txt`), `A note written while the service was down, number ${i}, about tidal pools.`);
    const expected = FILES - 10 + 5;

    const second = await start(dataDir);
    const base = second.base;
    try {
      await whileUp(second, eventually(async () => (await fetch(`${base}/api/status/`, { headers: auth })).status === 200, 60_000, 200));
      await whileUp(second, eventually(
        async () => {
          const [stats, queue, status, jobs] = await Promise.all([
            json(`${base}/api/files/stats`),
            json(`${base}/api/queue/status`),
            json(`${base}/api/status/`),
            json(`${base}/api/watch/jobs`),
          ]);
          const job = (jobs.jobs as { last_scan: string | null }[])[0];
          const runs = (status.worker_pool as { active_runs: number }).active_runs;
          return stats.total_files === expected && queue.total_items === 0 && runs === 0 && job?.last_scan ? true : null;
        },
        420_000,
        500,
      ));
      const stats = await json(`${base}/api/files/stats`);
      expect(stats).to.include({ total_files: expected, failed_files: 0 });
      expect(stats.extensions).to.deep.equal({ txt: expected });
    } finally {
      second.child.kill('SIGTERM');
    }
    expect(await second.exited).to.equal(0);

    // Look inside the database itself.
    const db = await openPglite(path.join(dataDir, 'pglite'));
    try {
      const one = async (sql: string) => Number(Object.values((await db.query<Record<string, unknown>>(sql)).rows[0]!)[0]);
      expect(await one(`SELECT count(*) FROM files`)).to.equal(expected);
      expect(await one(`SELECT count(DISTINCT path) FROM files`)).to.equal(expected);
      expect(await one(`SELECT count(*) FROM files WHERE status <> 'indexed'`)).to.equal(0);
      expect(await one(`SELECT count(*) FROM files WHERE path NOT LIKE '${watched}/%'`)).to.equal(0);
      expect(await one(`SELECT count(*) FROM files WHERE job_id IS DISTINCT FROM (SELECT min(id) FROM watch_jobs)`)).to.equal(0);
      // Chunk rows match each file's chunk_count; no chunk without its file; every file has its text embedded.
      expect(await one(`SELECT count(*) FROM files f WHERE chunk_count <> (SELECT count(*) FROM chunks c WHERE c.file_id = f.id)`)).to.equal(0);
      expect(await one(`SELECT count(*) FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.id = c.file_id)`)).to.equal(0);
      expect(await one(`SELECT count(*) FROM files WHERE chunk_count = 0`)).to.equal(0);
      expect(await one(`SELECT count(*) FROM queue_items`)).to.equal(0);
      // Deleted while down: gone; written while down: there.
      expect(await one(`SELECT count(*) FROM files WHERE path LIKE '%/new-%'`)).to.equal(5);
      const deleted = inA.slice(0, 10).map((n) => `'${path.join(watched, 'a', n)}'`).join(',');
      expect(await one(`SELECT count(*) FROM files WHERE path IN (${deleted})`)).to.equal(0);
    } finally {
      await db.close();
    }
  });
});

/** The processes whose command line holds `text` (a data directory's path), from /proc. */
async function processesNaming(text: string): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const cmdlines = await Promise.all(pids.map((pid) => readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')));
  return pids.filter((_, i) => cmdlines[i]!.includes(text)).map(Number);
}

describe('filesift killed with SIGKILL while it creates its database (the first start, a real process)', function () {
  this.timeout(300_000);
  let dataDir: string;
  let watched: string;

  before(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'filesift-crash-initdb-'));
    watched = await mkdtemp(path.join(tmpdir(), 'filesift-crash-initdb-docs-'));
    await writeFile(path.join(watched, 'tides.txt'), 'Tidal pools hold anemones and small crabs between the tides.');
  });
  after(async () => {
    await rm(dataDir, { recursive: true, force: true });
    await rm(watched, { recursive: true, force: true });
  });

  it('starts again into a new, working database: the half-created one is never taken for it, and is cleared', async () => {
    const first = await start(dataDir);
    try {
      // The database is being created beside its place, by a child process of the service.
      await whileUp(first, eventually(async () => {
        const creating = (await readdir(dataDir)).find((name) => name.startsWith('pglite.creating-'));
        return creating !== undefined && (await readdir(path.join(dataDir, creating))).length > 0;
      }, 120_000, 5));
    } finally {
      first.child.kill('SIGKILL');
    }
    expect(await first.exited).to.equal(null);
    // The creating process does not outlive the service; what it left is not a database in its place.
    await eventually(async () => (await processesNaming(path.join(dataDir, 'pglite.creating-'))).length === 0, 60_000, 100);
    expect(await readdir(dataDir)).to.not.include('pglite');

    const second = await start(dataDir);
    const base = second.base;
    try {
      await whileUp(second, eventually(async () => (await fetch(`${base}/api/status/`, { headers: auth })).status === 200, 120_000, 200));
      const res = await fetch(`${base}/api/watch/`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify({ directory_path: watched }) });
      expect(res.status).to.equal(201);
      await whileUp(second, eventually(async () => (await json(`${base}/api/files/stats`)).total_files === 1, 120_000, 200));
      const found = await json(`${base}/api/search/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'anemones', mode: 'keyword' }) });
      expect(JSON.stringify(found)).to.include('tides.txt');
    } finally {
      second.child.kill('SIGTERM');
    }
    expect(await second.exited).to.equal(0);
    expect((await readdir(dataDir)).filter((name) => name.startsWith('pglite'))).to.deep.equal(['pglite']);
  });
});
