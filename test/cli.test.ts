import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from './helpers/shared.js';
import { eventually } from './helpers/assert.js';

const cli = path.join(repoRoot, 'dist', 'src', 'cli.js');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

interface Run {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

function run(env: Record<string, string>): Run {
  const child = spawn(process.execPath, [cli], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', FILESIFT_MODEL_PULL: 'off', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

describe('filesift CLI (a real process)', function () {
  this.timeout(60_000);
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
        const res = await fetch(`${base}/api/status/`);
        return res.status === 200 ? ((await res.json()) as Record<string, unknown>) : null;
      }, 30_000, 200);
      expect(status).to.have.nested.property('database.engine', 'pglite');
      const put = await fetch(`${base}/api/settings/`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"queue.cooldown_seconds": 42}' });
      expect(put.status).to.equal(200);
    } finally {
      first.child.kill('SIGTERM');
    }
    expect(await first.exited).to.equal(0);
    expect(first.stderr()).to.match(/filesift is stopping/);

    const second = run(env);
    try {
      const settings = await eventually(async () => {
        const res = await fetch(`${base}/api/settings/`);
        return res.status === 200 ? ((await res.json()) as Record<string, unknown>) : null;
      }, 30_000, 200);
      expect(settings).to.have.nested.property('queue.cooldown_seconds', 42);
    } finally {
      second.child.kill('SIGINT');
    }
    expect(await second.exited).to.equal(0);
  });

  it('refuses to listen beyond loopback without a token, with one clear line', async () => {
    const r = run({ HOST: '0.0.0.0', FILESIFT_DATA_DIR: dataDir });
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
});
