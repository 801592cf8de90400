import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parsePullManifest, pullPlan } from '../../src/models/pull-plan.js';
import { BGE_SMALL_BASE_URL, bgeSmallFiles, MINILM_BASE_URL, miniLmFiles } from '../../src/models/pull.js';

const HASH = 'ab'.repeat(32);

describe('parsePullManifest', () => {
  it('reads the files with their optional saveAs and bytes, and the model label', () => {
    const text = JSON.stringify({ model: 'my-model', files: [{ name: 'vocab.txt', sha256: HASH }, { name: 'onnx/model.onnx', saveAs: 'model.onnx', sha256: HASH.toUpperCase(), bytes: 12 }] });
    expect(parsePullManifest(text, 'm.json')).to.deep.equal({
      ok: true,
      model: 'my-model',
      files: [{ name: 'vocab.txt', sha256: HASH }, { name: 'onnx/model.onnx', saveAs: 'model.onnx', sha256: HASH.toUpperCase(), bytes: 12 }],
    });
    expect(parsePullManifest(JSON.stringify({ files: [{ name: 'a', sha256: HASH }] }), 'm.json')).to.include({ model: 'model from manifest' });
  });

  it('names what is wrong, entry by entry', () => {
    const reason = (value: unknown): string => {
      const r = parsePullManifest(typeof value === 'string' ? value : JSON.stringify(value), 'm.json');
      return r.ok ? '' : r.reason;
    };
    expect(reason('{not json')).to.match(/m\.json is not valid JSON/);
    expect(reason({ files: [] })).to.match(/non-empty "files" array/);
    expect(reason([{ name: 'a', sha256: HASH }])).to.match(/must be an object/);
    expect(reason({ files: ['a'] })).to.match(/files\[0\] must be an object/);
    expect(reason({ files: [{ name: '../etc/passwd', sha256: HASH }] })).to.match(/files\[0\]\.name must be a relative path/);
    expect(reason({ files: [{ name: 'a', saveAs: '../../x', sha256: HASH }] })).to.match(/files\[0\]\.saveAs/);
    expect(reason({ files: [{ name: 'a', sha256: HASH }, { name: 'b', sha256: 'abc' }] })).to.match(/files\[1\]\.sha256 must be 64 hex digits/);
    expect(reason({ files: [{ name: 'a', sha256: HASH, bytes: -1 }] })).to.match(/files\[0\]\.bytes/);
  });
});

describe('pullPlan', () => {
  let tmp: string;
  before(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'filesift-plan-'));
  });
  after(() => rm(tmp, { recursive: true, force: true }));

  it('is all-MiniLM-L6-v2 from its hub by default, int8 unless fp32 is asked for, naming the model in its card', () => {
    expect(pullPlan()).to.deep.equal({
      ok: true,
      plan: { model: 'all-MiniLM-L6-v2 (int8)', baseUrl: MINILM_BASE_URL, files: miniLmFiles('int8'), card: { model: 'all-MiniLM-L6-v2', variant: 'int8', source: MINILM_BASE_URL } },
    });
    const fp32 = pullPlan({ variant: 'fp32', baseUrl: 'http://mirror.lan/minilm' });
    expect(fp32.ok && fp32.plan).to.deep.equal({
      model: 'all-MiniLM-L6-v2 (fp32)',
      baseUrl: 'http://mirror.lan/minilm',
      files: miniLmFiles('fp32'),
      card: { model: 'all-MiniLM-L6-v2', variant: 'fp32', source: 'http://mirror.lan/minilm' },
    });
  });

  it('pulls bge-small-en-v1.5 from its own hub folder: tokenizer.json and the export the Maven artifacts carry', () => {
    const plan = pullPlan({ model: 'bge-small-en-v1.5' });
    expect(plan.ok && plan.plan).to.deep.equal({
      model: 'bge-small-en-v1.5 (int8)',
      baseUrl: BGE_SMALL_BASE_URL,
      files: bgeSmallFiles('int8'),
      card: { model: 'bge-small-en-v1.5', variant: 'int8', source: BGE_SMALL_BASE_URL },
    });
    expect(bgeSmallFiles('int8').map((f) => [f.name, f.saveAs, f.bytes])).to.deep.equal([
      ['tokenizer.json', undefined, 711396],
      ['onnx/model_quantized.onnx', 'model.onnx', 34014426],
    ]);
    expect(bgeSmallFiles('fp32')[1]).to.include({ name: 'onnx/model.onnx', bytes: 133093490 });
  });

  it('takes the files of a manifest instead, or says why it cannot', async () => {
    const file = path.join(tmp, 'manifest.json');
    await writeFile(file, JSON.stringify({ model: 'other', files: [{ name: 'model.onnx', sha256: HASH }] }));
    const plan = pullPlan({ manifest: file, variant: 'fp32' });
    expect(plan.ok && plan.plan).to.deep.equal({ model: 'other', baseUrl: MINILM_BASE_URL, files: [{ name: 'model.onnx', sha256: HASH }] });
    const missing = pullPlan({ manifest: path.join(tmp, 'nope.json') });
    expect(missing.ok).to.equal(false);
    expect(!missing.ok && missing.reason).to.match(/cannot read the manifest .*nope\.json/);
  });
});
