import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, readlink, realpath, rm, symlink } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from './helpers/shared.js';
import { eventually } from './helpers/assert.js';
import { freePort } from './helpers/ports.js';

const cli = path.join(repoRoot, 'dist', 'src', 'cli.js');

interface Run {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** CI runs as root, where `filesift serve` insists on a token: every run here has one unless a test says otherwise. */
const TOKEN = 'cli-test-token';
const auth = { authorization: `Bearer ${TOKEN}` };

/** How long a test waits for a started service to answer (see the suite's timeout). */
const START_DEADLINE_MS = 90_000;

/** `node cli.js serve`, or (asBin) the file itself, as the `filesift` command runs: its first line picks node. */
function run(env: Record<string, string>, { token = true, asBin = false }: { token?: boolean; asBin?: boolean } = {}): Run {
  const child = spawn(asBin ? cli : process.execPath, asBin ? ['serve'] : [cli, 'serve'], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', FILESIFT_MODEL_PULL: 'off', ...(token ? { FILESIFT_API_TOKEN: TOKEN } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

describe('filesift CLI (a real process)', function () {
  // A real start is a few CPU-seconds (PGlite's WASM, migrations, worker threads), which at load 20 on two cores
  // is over 30 s of wall time: each start gets START_DEADLINE_MS, and mocha's limit covers the three starts a
  // test makes at most, or it would cut a start still within its own deadline.
  this.timeout(4 * START_DEADLINE_MS);
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'filesift-cli-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('starts on the embedded database, keeps settings across a restart, and stops gracefully on SIGTERM', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const env = { PORT: String(port), FILESIFT_DATA_DIR: dataDir };
    const first = run(env);
    try {
      const status = await eventually(async () => {
        const res = await fetch(`${base}/api/status/`, { headers: auth });
        return res.status === 200 ? ((await res.json()) as Record<string, unknown>) : null;
      }, START_DEADLINE_MS, 200);
      expect(status).to.have.nested.property('database.engine', 'pglite');
      const put = await fetch(`${base}/api/settings/`, { method: 'PUT', headers: { 'content-type': 'application/json', ...auth }, body: '{"queue.cooldown_seconds": 42}' });
      expect(put.status).to.equal(200);
    } finally {
      first.child.kill('SIGTERM');
    }
    expect(await first.exited).to.equal(0);
    expect(first.stderr()).to.match(/filesift is stopping/);

    const second = run(env);
    try {
      const settings = await eventually(async () => {
        const res = await fetch(`${base}/api/settings/`, { headers: auth });
        return res.status === 200 ? ((await res.json()) as Record<string, unknown>) : null;
      }, START_DEADLINE_MS, 200);
      expect(settings).to.have.nested.property('queue.cooldown_seconds', 42);
    } finally {
      second.child.kill('SIGINT');
    }
    expect(await second.exited).to.equal(0);
  });

  it('as the filesift command, runs the service with its glibc malloc settings and node flag (MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_, --max-semi-space-size from its first line)', async function () {
    if (process.platform !== 'linux') this.skip(); // /proc: the variable matters to glibc only
    await chmod(cli, 0o755); // what npm link / npm install -g do to a bin
    const port = await freePort();
    const r = run({ PORT: String(port), FILESIFT_DATA_DIR: dataDir, PATH: `${path.dirname(process.execPath)}:${process.env.PATH ?? ''}` }, { asBin: true });
    try {
      await eventually(async () => (await fetch(`http://127.0.0.1:${port}/api/status/`, { headers: auth })).status === 200, START_DEADLINE_MS, 200);
      // env(1) execs node: the process that listens is the one spawned.
      const environ = (await readFile(`/proc/${r.child.pid}/environ`, 'utf8')).split('\0');
      expect(environ).to.include('MALLOC_ARENA_MAX=2');
      expect(environ).to.include('MALLOC_MMAP_THRESHOLD_=131072');
      // ... and node's flag from the same line (the main thread's young generation).
      expect((await readFile(`/proc/${r.child.pid}/cmdline`, 'utf8')).split('\0')).to.include('--max-semi-space-size=8');
      // Its program is node itself (its thread name is not: Node 24 names the main thread 'MainThread').
      expect(path.basename(await readlink(`/proc/${r.child.pid}/exe`))).to.match(/^node/);
    } finally {
      r.child.kill('SIGTERM');
    }
    expect(await r.exited).to.equal(0);
  });

  it('refuses to listen beyond loopback without a token, with one clear line', async () => {
    const r = run({ HOST: '0.0.0.0', FILESIFT_DATA_DIR: dataDir }, { token: false });
    expect(await r.exited).to.equal(1);
    expect(r.stderr()).to.match(/^filesift: HOST is '0\.0\.0\.0'.*FILESIFT_API_TOKEN/m);
    expect(r.stderr()).not.to.match(/\n\s+at /);
  });

  it('explains an unreachable DATABASE_URL without a stack trace', async () => {
    const port = await freePort();
    const r = run({ DATABASE_URL: `postgres://nobody@127.0.0.1:${port}/x`, FILESIFT_DATA_DIR: dataDir, PORT: '0' });
    expect(await r.exited).to.equal(1);
    expect(r.stderr()).to.match(/filesift: Cannot use the PostgreSQL server at 127\.0\.0\.1:\d+\/x/);
    expect(r.stderr()).not.to.match(/\n\s+at /);
  });

  it('as root, refuses to start without a token, in one clear line (as another user it starts)', async () => {
    const port = await freePort();
    const r = run({ PORT: String(port), FILESIFT_DATA_DIR: dataDir }, { token: false });
    if (process.getuid?.() === 0) {
      expect(await r.exited).to.equal(1);
      expect(r.stderr()).to.match(/^filesift: running as root without FILESIFT_API_TOKEN/m);
      expect(r.stderr()).not.to.match(/\n\s+at /);
      return;
    }
    try {
      await eventually(async () => (await fetch(`http://127.0.0.1:${port}/api/status/`)).status === 200, START_DEADLINE_MS, 200);
    } finally {
      r.child.kill('SIGTERM');
    }
    expect(await r.exited).to.equal(0);
  });

  it('refuses a second server on the same data directory, naming the first; the first keeps running', async () => {
    const [port1, port2] = [await freePort(), await freePort()];
    const first = run({ PORT: String(port1), FILESIFT_DATA_DIR: dataDir });
    try {
      await eventually(async () => (await fetch(`http://127.0.0.1:${port1}/api/status/`, { headers: auth })).status === 200, START_DEADLINE_MS, 200);
      // The same folder through a link is the same data directory.
      const link = `${dataDir}-link`;
      await symlink(dataDir, link);
      try {
        for (const spelling of [dataDir, link]) {
          const second = run({ PORT: String(port2), FILESIFT_DATA_DIR: spelling });
          expect(await second.exited).to.equal(1);
          const line = `filesift: the data directory ${await realpath(dataDir)} is in use by filesift process ${first.child.pid} (http://127.0.0.1:${port1})`;
          expect(second.stderr()).to.include(line);
          expect(second.stderr()).not.to.match(/\n\s+at /);
        }
      } finally {
        await rm(link, { force: true });
      }
      expect((await fetch(`http://127.0.0.1:${port1}/api/status/`, { headers: auth })).status).to.equal(200);
    } finally {
      first.child.kill('SIGTERM');
    }
    expect(await first.exited).to.equal(0);
    // Once the first is gone, the directory is free again at once (the lock dies with its process).
    const third = run({ PORT: String(port2), FILESIFT_DATA_DIR: dataDir });
    try {
      await eventually(async () => (await fetch(`http://127.0.0.1:${port2}/api/status/`, { headers: auth })).status === 200, START_DEADLINE_MS, 200);
    } finally {
      third.child.kill('SIGKILL');
    }
    await third.exited;
    const fourth = run({ PORT: String(port2), FILESIFT_DATA_DIR: dataDir });
    try {
      await eventually(async () => (await fetch(`http://127.0.0.1:${port2}/api/status/`, { headers: auth })).status === 200, START_DEADLINE_MS, 200);
    } finally {
      fourth.child.kill('SIGTERM');
    }
    expect(await fourth.exited).to.equal(0);
  });

  it('finds a taken port before it creates or opens anything', async () => {
    const taken = createServer();
    const port = await new Promise<number>((resolve) => taken.listen(0, '127.0.0.1', () => resolve((taken.address() as { port: number }).port)));
    try {
      const fresh = path.join(dataDir, 'not-yet');
      const r = run({ PORT: String(port), FILESIFT_DATA_DIR: fresh });
      expect(await r.exited).to.equal(1);
      expect(r.stderr()).to.match(/^filesift: .*EADDRINUSE/m);
      expect(existsSync(fresh)).to.equal(false);
    } finally {
      taken.close();
    }
  });
});
