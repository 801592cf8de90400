import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { eventually } from './helpers/assert.js';
import { createScratchDatabase, testEngines, type ScratchDatabase } from './helpers/engines.js';
import { imageCommand } from './helpers/dockerfile.js';
import { repoRoot } from './helpers/shared.js';

interface ComposeService {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  volumes?: string[];
}

/** Resolves ${VAR} and ${VAR:?message} the way docker compose does, from the given variables. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{([A-Z_]+)(:\?[^}]*)?\}/g, (_, name: string) => {
    const v = vars[name];
    if (v === undefined) throw new Error(`compose variable ${name} is not set`);
    return v;
  });
}

/**
 * Docker does not run on these machines, so this reads docker-compose.yml and the Dockerfile and runs the
 * filesift service natively with exactly the compose environment (its database swapped for the test server).
 */
describe('docker-compose deployment, run natively', function () {
  this.timeout(90_000);
  let compose: { services: Record<string, ComposeService>; volumes: Record<string, unknown> };
  let dockerfile: string;

  before(async () => {
    compose = parse(await readFile(path.join(repoRoot, 'docker-compose.yml'), 'utf8')) as typeof compose;
    dockerfile = await readFile(path.join(repoRoot, 'Dockerfile'), 'utf8');
  });

  it('pairs filesift with pgvector on PostgreSQL 17, healthy before filesift starts, on loopback only', () => {
    const db = compose.services.db!;
    const app = compose.services.filesift!;
    expect(db.image).to.match(/^pgvector\/pgvector:pg17/);
    expect(db.healthcheck?.test.join(' ')).to.match(/pg_isready/);
    expect(db.volumes?.[0]).to.match(/^pgdata:/);
    expect(compose.volumes).to.have.property('pgdata');
    expect(app.build).to.not.equal(undefined);
    expect(app.depends_on?.db?.condition).to.equal('service_healthy');
    expect(app.ports).to.deep.equal(['127.0.0.1:60534:60534']);
    expect(app.environment?.DATABASE_URL).to.match(/@db:5432\//);
    // Folders are mounted at their host path, so search results name paths the user can open.
    expect(app.volumes?.some((v) => /^([^:]+):\1:ro$/.test(v))).to.equal(true);
  });

  it('builds an image that holds everything the service reads at run time', () => {
    // The build stage compiles src, workers and scripts, builds the web app (web/), then the embedder (after tsc).
    for (const dir of ['src', 'workers', 'sql', 'scripts', 'web']) expect(dockerfile).to.match(new RegExp(`^COPY ${dir} \\./${dir}$`, 'm'));
    // The runtime stage needs the compiled code, the migrations and the built-in embedder's model.
    for (const dir of ['dist', 'sql', 'build', 'node_modules']) expect(dockerfile).to.match(new RegExp(`^COPY --from=build /app/${dir} \\./${dir}$`, 'm'));
    expect(dockerfile).to.match(/ENV ONNXRUNTIME_NODE_INSTALL=skip/);
  });

  it('starts with the compose environment, demands the token, and passes the image health check', async () => {
    const app = compose.services.filesift!;
    const token = 'compose-test-token';
    const withPostgres = testEngines().includes('postgres');
    const dataDir = await mkdtemp(path.join(tmpdir(), 'filesift-compose-'));
    const scratch: ScratchDatabase | null = withPostgres ? await createScratchDatabase() : null;
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(app.environment ?? {})) env[k] = interpolate(String(v), { FILESIFT_API_TOKEN: token });
    // Swap what only exists inside compose: the database host and the data volume; and a free port.
    // Without a PostgreSQL server (a developer machine) the embedded database stands in; CI always has one.
    if (scratch) env.DATABASE_URL = scratch.url;
    else delete env.DATABASE_URL;
    env.FILESIFT_DATA_DIR = dataDir;
    env.PORT = String(40000 + Math.floor(Math.random() * 20000));
    env.FILESIFT_MODEL_PULL = 'off'; // the test never reaches the model hub (compose's service does, by default)
    expect(env.HOST).to.equal('0.0.0.0');
    // The image's own command (exec form: `CMD ["node", NODE_FLAGS..., "dist/src/cli.js", "serve"]`), run from the
    // checkout: its script's path taken from the repository, node's flags as they are.
    const command = imageCommand(dockerfile);
    expect(command, 'the CMD of the runtime stage').to.be.an('array').with.length.above(1);
    expect(command![0]).to.equal('node');
    expect(command, 'the script the image runs').to.include('dist/src/cli.js');
    const child = spawn(process.execPath, command!.slice(1).map((arg) => (arg === 'dist/src/cli.js' ? path.join(repoRoot, arg) : arg)), {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: 'ignore',
    });
    try {
      const base = `http://127.0.0.1:${env.PORT}`;
      const status = await eventually(async () => {
        const res = await fetch(`${base}/api/status/`, { headers: { authorization: `Bearer ${token}` } });
        return res.status === 200 ? ((await res.json()) as Record<string, unknown>) : null;
      }, 60_000, 250);
      expect(status).to.have.nested.property('database.engine', scratch ? 'postgres' : 'pglite');
      expect((await fetch(`${base}/api/status/`)).status).to.equal(401);
      // The Dockerfile's HEALTHCHECK command, run as the container would (same environment, /app = the repository).
      const check = /HEALTHCHECK[\s\S]*?CMD (\[[^\n]*\])/.exec(dockerfile)?.[1];
      expect(check, 'HEALTHCHECK command (exec form)').to.be.a('string');
      const [command, ...args] = JSON.parse(check!) as string[];
      expect(command).to.equal('node');
      const run = (extra: Record<string, string>) => promisify(execFile)(process.execPath, args, { cwd: repoRoot, env: { PATH: process.env.PATH ?? '', ...env, ...extra } });
      await run({});
      await run({ FILESIFT_API_TOKEN: 'wrong' }).then(
        () => expect.fail('the health check must fail without the right token'),
        (err: { code?: number }) => expect(err.code).to.equal(1),
      );
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await scratch?.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
