import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bgeSmallFiles, miniLmFiles } from '../../src/models/pull.js';
import { eventually } from '../helpers/assert.js';
import { SMALL_BERT, writeBertModelDir } from '../helpers/bert-graph.js';
import { hubForModelDir, startHub, type Hub } from '../helpers/hub.js';
import { realModelDir } from '../helpers/models.js';
import { repoRoot, sharedPath } from '../helpers/shared.js';

const cli = path.join(repoRoot, 'dist', 'src', 'cli.js');

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `filesift pull-model ...` as a real process; `during` may act while it runs (e.g. send a signal). */
function pullModel(args: string[], env: Record<string, string>, during?: (child: ReturnType<typeof spawn>) => Promise<void>): Promise<Ran> {
  const child = spawn(process.execPath, [cli, 'pull-model', ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return (async () => {
    if (during) await during(child);
    return { code: await exited, stdout, stderr };
  })();
}

describe('filesift pull-model (a real process)', function () {
  this.timeout(60_000);
  let tmp: string;
  let dataDir: string;
  let manifest: string;
  let modelDir: string;
  let hub: Hub;

  before(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'filesift-pull-cli-'));
    modelDir = writeBertModelDir(path.join(tmp, 'source'), SMALL_BERT, sharedPath('models', 'all-MiniLM-L6-v2-tokenizer', 'vocab.txt'));
    manifest = path.join(tmp, 'manifest.json');
    hub = await startHub(hubForModelDir(modelDir, manifest));
  });
  after(async () => {
    await hub.close();
    await rm(tmp, { recursive: true, force: true });
  });
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmp, 'data-'));
    hub.requests.length = 0;
  });

  const target = (): string => path.join(dataDir, 'models', 'all-MiniLM-L6-v2');

  it('downloads into the data directory, checks the hashes, loads the model, and prints the folder', async () => {
    const ran = await pullModel(['--base-url', hub.base, '--manifest', manifest], { FILESIFT_DATA_DIR: dataDir });
    expect(ran.code, ran.stderr).to.equal(0);
    expect(ran.stdout).to.equal(`${target()}\n`);
    expect(ran.stderr).to.match(/is ready in .*dimension 32/);
    expect(readdirSync(target()).sort()).to.deep.equal(['config.json', 'model.onnx', 'vocab.txt']);
    expect(readFileSync(path.join(target(), 'model.onnx')).equals(readFileSync(path.join(modelDir, 'model.onnx')))).to.equal(true);
    expect(hub.requests).to.deep.equal(['repo/vocab.txt', 'repo/config.json', 'repo/model.onnx']);

    hub.requests.length = 0;
    const again = await pullModel(['--base-url', hub.base, '--manifest', manifest], { FILESIFT_DATA_DIR: dataDir });
    expect(again.code).to.equal(0);
    expect(again.stderr).to.match(/model\.onnx: already present, checksum ok/);
    expect(hub.requests).to.deep.equal([]);
  });

  it('takes --dir, and the base URL and manifest from the environment', async () => {
    const dir = path.join(tmp, 'elsewhere');
    const ran = await pullModel(['--dir', dir], { FILESIFT_DATA_DIR: dataDir, FILESIFT_MODEL_BASE_URL: hub.base, FILESIFT_MODEL_MANIFEST: manifest });
    expect(ran.code, ran.stderr).to.equal(0);
    expect(ran.stdout).to.equal(`${dir}\n`);
    expect(existsSync(path.join(dir, 'model.onnx'))).to.equal(true);
    expect(existsSync(target())).to.equal(false);
  });

  it('fails with the reason on a checksum mismatch, keeping no model file', async () => {
    const badManifest = path.join(tmp, 'bad-manifest.json');
    const bad = await startHub(hubForModelDir(modelDir, badManifest, ['model.onnx']));
    try {
      const ran = await pullModel(['--base-url', bad.base, '--manifest', badManifest], { FILESIFT_DATA_DIR: dataDir });
      expect(ran.code).to.equal(1);
      expect(ran.stderr).to.match(/^filesift: pull-model failed \(checksum_mismatch\) on model\.onnx: .*sha256/m);
      expect(ran.stdout).to.equal('');
      expect(readdirSync(target()).sort()).to.deep.equal(['config.json', 'vocab.txt']);
    } finally {
      await bad.close();
    }
  });

  it('pulls all-MiniLM-L6-v2 against its published hashes by default (int8, or fp32 with --variant)', async () => {
    // The real tokenizer files verify; the hub has no weights, so the model file is a 404.
    const dir = sharedPath('models', 'all-MiniLM-L6-v2-tokenizer');
    const real = await startHub(new Map(['vocab.txt', 'config.json', 'tokenizer_config.json'].map((f) => [f, readFileSync(path.join(dir, f))])));
    try {
      const ran = await pullModel(['--base-url', real.base], { FILESIFT_DATA_DIR: dataDir });
      expect(ran.code).to.equal(1);
      expect(ran.stderr).to.match(/pulling all-MiniLM-L6-v2 \(int8\)/);
      expect(ran.stderr).to.match(/failed \(http_error\) on model\.onnx: .*404/);
      expect(real.requests).to.deep.equal(miniLmFiles('int8').map((f) => f.name));
      expect(readdirSync(target()).sort()).to.deep.equal(['config.json', 'filesift-model.json', 'tokenizer_config.json', 'vocab.txt']);
      expect(JSON.parse(readFileSync(path.join(target(), 'filesift-model.json'), 'utf8'))).to.deep.equal({ model: 'all-MiniLM-L6-v2', variant: 'int8', source: real.base });
      real.requests.length = 0;
      const fp32 = await pullModel(['--base-url', real.base, '--variant', 'fp32'], { FILESIFT_DATA_DIR: dataDir });
      expect(fp32.code).to.equal(1);
      expect(real.requests).to.deep.equal(['onnx/model.onnx']); // the rest is already there and intact
    } finally {
      await real.close();
    }
  });

  it('pulls bge-small-en-v1.5 from its hub layout against the recorded hashes, and the folder loads as that model', async function () {
    // The real files (from the model cache scripts/fetch-models.sh fills), served by a local hub in the hub's layout.
    const real = realModelDir('bge-small-en-v1.5-int8');
    if (!real.ok) {
      if (process.env.FILESIFT_REQUIRE_MODELS === '1') throw new Error(real.reason);
      this.skip();
    }
    const files = new Map([
      ['tokenizer.json', readFileSync(path.join(real.dir, 'tokenizer.json'))],
      ['onnx/model_quantized.onnx', readFileSync(path.join(real.dir, 'model.onnx'))],
    ]);
    const bge = await startHub(files);
    try {
      const ran = await pullModel(['--model', 'bge-small-en-v1.5', '--base-url', bge.base], { FILESIFT_DATA_DIR: dataDir });
      const dir = path.join(dataDir, 'models', 'bge-small-en-v1.5');
      expect(ran.code, ran.stderr).to.equal(0);
      expect(bge.requests).to.deep.equal(bgeSmallFiles('int8').map((f) => f.name));
      expect(ran.stderr).to.match(/note: the service uses FILESIFT_MODEL=all-MiniLM-L6-v2; start it with FILESIFT_MODEL=bge-small-en-v1\.5/);
      expect(ran.stderr).to.match(/is ready in .*\(bge-small-en-v1\.5, dimension 384\)/);
      expect(ran.stdout).to.equal(`${dir}\n`);
      expect(readdirSync(dir).sort()).to.deep.equal(['filesift-model.json', 'model.onnx', 'tokenizer.json']);
    } finally {
      await bge.close();
    }
  });

  it('stops cleanly on Ctrl-C, keeping no partial file', async () => {
    hub.hold();
    try {
      const ran = await pullModel(['--base-url', hub.base, '--manifest', manifest], { FILESIFT_DATA_DIR: dataDir }, async (child) => {
        await eventually(() => hub.requests.length > 0, 20_000);
        child.kill('SIGINT');
      });
      expect(ran.code).to.equal(130);
      expect(ran.stderr).to.match(/interrupted/);
      expect(existsSync(target()) ? readdirSync(target()) : []).to.deep.equal([]);
    } finally {
      hub.release();
    }
  });

  it('rejects a bad option with one clear line', async () => {
    // A wrong command line is exit code 2, as for every command.
    const variant = await pullModel(['--variant', 'fp16'], { FILESIFT_DATA_DIR: dataDir });
    expect(variant.code).to.equal(2);
    expect(variant.stderr).to.equal("filesift pull-model: --variant must be one of int8, fp32, got 'fp16' (filesift pull-model --help)\n");
    const unknown = await pullModel(['--frobnicate'], { FILESIFT_DATA_DIR: dataDir });
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.equal("filesift pull-model: unknown option '--frobnicate' (filesift pull-model --help)\n");
    const help = await pullModel(['--help'], {});
    expect(help.code).to.equal(0);
    expect(help.stdout).to.match(/Usage: filesift pull-model/);
  });
});
