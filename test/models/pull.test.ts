import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import {
  miniLmFiles,
  pullMiniLm,
  pullModel,
  type PullFile,
  type PullProgress,
} from '../../src/models/pull.js';
import { createPullProgressBar } from '../../src/models/pull-progress.js';
import { sharedPath } from '../helpers/shared.js';

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

/**
 * A local hub: GET /<mode>/<path> serves `content[path]`:
 * ok = as is; bad = corrupted; drop = half then a reset connection; stall = half then silence;
 * long = with extra bytes; redirect = 302 to ok. Unknown paths are 404.
 */
function startHub(content: Map<string, Buffer>): Promise<{ base: string; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url ?? '');
    requests.push(url);
    const [, mode, ...rest] = url.split('/');
    const body = content.get(rest.join('/'));
    if (body === undefined) {
      res.writeHead(404).end('not found');
      return;
    }
    const half = body.subarray(0, body.length >> 1);
    switch (mode) {
      case 'ok':
        res.writeHead(200, { 'content-length': body.length }).end(body);
        return;
      case 'bad': {
        const copy = Buffer.from(body);
        copy[0] = (copy[0] ?? 0) ^ 0xff;
        res.writeHead(200, { 'content-length': copy.length }).end(copy);
        return;
      }
      case 'long':
        res.writeHead(200).end(Buffer.concat([body, Buffer.from('extra')]));
        return;
      case 'drop':
        res.writeHead(200, { 'content-length': body.length });
        res.write(half, () => setTimeout(() => req.socket.destroy(), 20));
        return;
      case 'stall':
        res.writeHead(200, { 'content-length': body.length });
        res.write(half); // and never more
        return;
      case 'redirect':
        res.writeHead(302, { location: `/ok/${rest.join('/')}` }).end();
        return;
      default:
        res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        base: `http://127.0.0.1:${port}`,
        requests,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

describe('pullModel', () => {
  let tmp: string;
  let hub: Awaited<ReturnType<typeof startHub>>;
  const content = new Map<string, Buffer>([
    ['vocab.txt', Buffer.from('[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n')],
    ['config.json', Buffer.from('{"hidden_size": 8}')],
    ['onnx/model_quantized.onnx', randomBytes(300_000)],
  ]);
  const files: PullFile[] = [
    { name: 'vocab.txt', sha256: sha256(content.get('vocab.txt')!), bytes: content.get('vocab.txt')!.length },
    { name: 'config.json', sha256: sha256(content.get('config.json')!) }, // no size: Content-Length is the total
    {
      name: 'onnx/model_quantized.onnx',
      saveAs: 'model.onnx',
      sha256: sha256(content.get('onnx/model_quantized.onnx')!),
      bytes: 300_000,
    },
  ];
  let dest: string;

  before(async () => {
    hub = await startHub(content);
  });
  after(() => hub.close());
  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'filesift-pull-'));
    dest = path.join(tmp, 'model');
    hub.requests.length = 0;
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  const leftovers = (): string[] => (existsSync(dest) ? readdirSync(dest).filter((f) => f.includes('.partial-')) : []);

  it('downloads, verifies and renames every file, reporting progress', async () => {
    const events: PullProgress[] = [];
    const result = await pullModel({ baseUrl: `${hub.base}/ok/`, destDir: dest, files, onProgress: (p) => events.push(p) });
    expect(result).to.deep.equal({
      ok: true,
      dir: dest,
      files: [
        { file: 'vocab.txt', path: path.join(dest, 'vocab.txt'), skipped: false },
        { file: 'config.json', path: path.join(dest, 'config.json'), skipped: false },
        { file: 'model.onnx', path: path.join(dest, 'model.onnx'), skipped: false },
      ],
    });
    expect(readFileSync(path.join(dest, 'model.onnx')).equals(content.get('onnx/model_quantized.onnx')!)).to.equal(true);
    expect(readdirSync(dest).sort()).to.deep.equal(['config.json', 'model.onnx', 'vocab.txt']);
    const model = events.filter((e) => e.file === 'model.onnx');
    expect(model[0]).to.include({ phase: 'downloading', received: 0, total: 300_000, fileIndex: 2, fileCount: 3 });
    expect(model[model.length - 1]).to.include({ phase: 'done', received: 300_000 });
    for (let i = 1; i < model.length; i++) expect(model[i]!.received).to.be.at.least(model[i - 1]!.received);
    expect(events.find((e) => e.file === 'config.json')?.total).to.equal(content.get('config.json')!.length);
  });

  it('skips files already present with the right checksum, and replaces corrupt ones', async () => {
    await pullModel({ baseUrl: `${hub.base}/ok`, destDir: dest, files });
    hub.requests.length = 0;
    writeFileSync(path.join(dest, 'config.json'), '{"tampered": true}');
    const result = await pullModel({ baseUrl: `${hub.base}/ok`, destDir: dest, files });
    expect(result.ok && result.files.map((f) => f.skipped)).to.deep.equal([true, false, true]);
    expect(hub.requests).to.deep.equal(['/ok/config.json']);
    expect(readFileSync(path.join(dest, 'config.json'), 'utf8')).to.equal('{"hidden_size": 8}');
  });

  it('rejects a checksum mismatch and deletes the download', async () => {
    const result = await pullModel({ baseUrl: `${hub.base}/bad`, destDir: dest, files });
    expect(result).to.deep.include({ ok: false, code: 'checksum_mismatch', file: 'vocab.txt' });
    expect(!result.ok && result.reason).to.contain('sha256');
    expect(existsSync(path.join(dest, 'vocab.txt'))).to.equal(false);
    expect(leftovers()).to.deep.equal([]);
  });

  it('reports a 404 and keeps what was already verified', async () => {
    const result = await pullModel({
      baseUrl: `${hub.base}/ok`,
      destDir: dest,
      files: [files[0]!, { name: 'missing.onnx', saveAs: 'model.onnx', sha256: '00'.repeat(32) }],
    });
    expect(result).to.deep.include({ ok: false, code: 'http_error', file: 'model.onnx' });
    expect(!result.ok && result.reason).to.contain('404');
    expect(existsSync(path.join(dest, 'vocab.txt'))).to.equal(true);
    expect(existsSync(path.join(dest, 'model.onnx'))).to.equal(false);
  });

  it('reports a dropped connection as a network error, leaving no partial file', async () => {
    const result = await pullModel({ baseUrl: `${hub.base}/drop`, destDir: dest, files: [files[2]!] });
    expect(result).to.deep.include({ ok: false, code: 'network_error', file: 'model.onnx' });
    expect(existsSync(path.join(dest, 'model.onnx'))).to.equal(false);
    expect(leftovers()).to.deep.equal([]);
  });

  it('gives up on a stalled connection after the idle timeout', async () => {
    const result = await pullModel({ baseUrl: `${hub.base}/stall`, destDir: dest, files: [files[2]!], idleTimeoutMs: 300 });
    expect(result).to.deep.include({ ok: false, code: 'network_error', file: 'model.onnx' });
    expect(!result.ok && result.reason).to.contain('no data');
    expect(leftovers()).to.deep.equal([]);
  });

  it('rejects a file larger than expected', async () => {
    const result = await pullModel({ baseUrl: `${hub.base}/long`, destDir: dest, files: [files[0]!] });
    expect(result).to.deep.include({ ok: false, code: 'size_mismatch', file: 'vocab.txt' });
    expect(existsSync(path.join(dest, 'vocab.txt'))).to.equal(false);
  });

  it('follows redirects (the hub sends files from a CDN)', async () => {
    const result = await pullModel({ baseUrl: `${hub.base}/redirect`, destDir: dest, files: [files[2]!] });
    expect(result.ok).to.equal(true);
    expect(statSync(path.join(dest, 'model.onnx')).size).to.equal(300_000);
  });

  it('stops when cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await pullModel({ baseUrl: `${hub.base}/ok`, destDir: dest, files, signal: controller.signal });
    expect(result).to.deep.include({ ok: false, code: 'aborted', file: 'vocab.txt' });
  });

  it('reports a destination it cannot write as an io_error', async () => {
    mkdirSync(tmp, { recursive: true });
    writeFileSync(path.join(tmp, 'blocker'), 'a file where a folder should be');
    const result = await pullModel({ baseUrl: `${hub.base}/ok`, destDir: path.join(tmp, 'blocker', 'x'), files });
    expect(result).to.deep.include({ ok: false, code: 'io_error', file: 'vocab.txt' });
  });
});

describe('miniLmFiles', () => {
  it('lists the real tokenizer files with the sizes and hashes they have', async () => {
    const specs = miniLmFiles().filter((f) => !f.name.endsWith('.onnx'));
    expect(specs.map((f) => f.name)).to.deep.equal(['vocab.txt', 'config.json', 'tokenizer_config.json']);
    for (const f of specs) {
      const bytes = readFileSync(sharedPath('models', 'all-MiniLM-L6-v2-tokenizer', f.name));
      expect(sha256(bytes), f.name).to.equal(f.sha256);
      expect(bytes.length, f.name).to.equal(f.bytes);
    }
  });

  it('saves either model variant as model.onnx', () => {
    expect(miniLmFiles('int8').at(-1)).to.include({ name: 'onnx/model_quantized.onnx', saveAs: 'model.onnx', bytes: 22972370 });
    expect(miniLmFiles('fp32').at(-1)).to.include({ name: 'onnx/model.onnx', saveAs: 'model.onnx', bytes: 90387606 });
  });

  it('pulls the real tokenizer files from a local hub against their published hashes', async () => {
    const dir = sharedPath('models', 'all-MiniLM-L6-v2-tokenizer');
    const specs = miniLmFiles().filter((f) => !f.name.endsWith('.onnx'));
    const hub = await startHub(new Map(specs.map((f) => [f.name, readFileSync(path.join(dir, f.name))])));
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'filesift-pull-real-'));
    try {
      const result = await pullModel({ baseUrl: `${hub.base}/ok`, destDir: tmp, files: specs });
      expect(result.ok).to.equal(true);
      expect(readdirSync(tmp).sort()).to.deep.equal(['config.json', 'tokenizer_config.json', 'vocab.txt']);
    } finally {
      await hub.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('pullMiniLm', () => {
  it('fetches the MiniLM layout from the given base URL and checks the published hashes', async () => {
    // A stand-in of the right size but the wrong bytes.
    const hub = await startHub(new Map([['vocab.txt', Buffer.alloc(231508, 'x')]]));
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'filesift-pull-minilm-'));
    try {
      const result = await pullMiniLm({ destDir: tmp, baseUrl: `${hub.base}/ok` });
      expect(result).to.deep.include({ ok: false, code: 'checksum_mismatch', file: 'vocab.txt' });
      expect(hub.requests).to.deep.equal(['/ok/vocab.txt']);
    } finally {
      await hub.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('createPullProgressBar', () => {
  it('draws a bar per file and notes skipped files', () => {
    const stream = new PassThrough();
    let out = '';
    stream.on('data', (d: Buffer) => (out += d.toString()));
    const { onProgress, stop } = createPullProgressBar({ stream, forceRedraw: true });
    onProgress({ file: 'vocab.txt', fileIndex: 0, fileCount: 2, received: 0, phase: 'skipped' });
    onProgress({ file: 'model.onnx', fileIndex: 1, fileCount: 2, received: 0, total: 2_000_000, phase: 'downloading' });
    onProgress({ file: 'model.onnx', fileIndex: 1, fileCount: 2, received: 2_000_000, total: 2_000_000, phase: 'done' });
    stop();
    expect(out).to.contain('vocab.txt: already present, checksum ok');
    expect(out).to.contain('[2/2] model.onnx');
    expect(out).to.contain('100%');
    expect(out).to.contain('2.0/2.0 MB');
  });
});
