import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  defaultBuiltinDir,
  describeEmbedder,
  loadEmbedder,
  modelDirFromEnv,
} from '../../../src/pipeline/embedders/index.js';
import { SMALL_BERT, writeBertModelDir } from '../../helpers/bert-graph.js';
import { sharedPath } from '../../helpers/shared.js';

describe('defaultBuiltinDir', () => {
  it('points at the build that `npm run build` makes', () => {
    expect(existsSync(path.join(defaultBuiltinDir(), 'meta.json'))).to.equal(true);
    for (const file of ['vectors.i8', 'weights.f32', 'vocab.txt']) expect(existsSync(path.join(defaultBuiltinDir(), file)), file).to.equal(true);
  });
});

describe('modelDirFromEnv', () => {
  it('prefers FILESIFT_MODEL_DIR, else the fallback', () => {
    expect(modelDirFromEnv({ FILESIFT_MODEL_DIR: '/models/mine' }, '/data/models/x')).to.equal(path.resolve('/models/mine'));
    expect(modelDirFromEnv({ FILESIFT_MODEL_DIR: '  ' }, '/data/models/x')).to.equal('/data/models/x');
    expect(modelDirFromEnv({})).to.equal(undefined);
  });
});

describe('describeEmbedder / loadEmbedder', () => {
  let tmp: string;
  let modelDir: string;

  before(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'filesift-embedders-'));
    modelDir = writeBertModelDir(
      path.join(tmp, 'model'),
      SMALL_BERT,
      sharedPath('models', 'all-MiniLM-L6-v2-tokenizer', 'vocab.txt'),
    );
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('uses the transformer when its folder has model.onnx and vocab.txt', async () => {
    expect(describeEmbedder({ modelDir, builtinDir: defaultBuiltinDir() })).to.deep.equal({
      ok: true,
      kind: 'transformer',
      model: 'generated-bert',
      dimension: SMALL_BERT.hidden,
      dir: modelDir,
    });
    const embedder = await loadEmbedder({ modelDir, builtinDir: defaultBuiltinDir() });
    expect(embedder.info).to.deep.equal({ kind: 'transformer', model: 'generated-bert', dimension: SMALL_BERT.hidden });
    await embedder.close();
  });

  it('falls back to the built-in embedder, saying why', async () => {
    const empty = path.join(tmp, 'empty-model');
    mkdirSync(empty);
    const which = describeEmbedder({ modelDir: empty, builtinDir: defaultBuiltinDir() });
    expect(which).to.deep.equal({
      ok: true,
      kind: 'static',
      model: 'glove-sg-100d-sif',
      dimension: 100,
      dir: defaultBuiltinDir(),
      fallbackReason: `${empty} has no model.onnx or tokenizer.json (or vocab.txt)`,
    });
    const embedder = await loadEmbedder({ modelDir: empty, builtinDir: defaultBuiltinDir() });
    expect(embedder.info.kind).to.equal('static');
    const [v] = await embedder.embed(['hello world']);
    expect(v).to.have.length(100);
    await embedder.close();
    expect(describeEmbedder({ builtinDir: defaultBuiltinDir() })).to.not.have.property('fallbackReason');
  });

  it('reports that nothing is available, with the command that builds the built-in embedder', async () => {
    const nowhere = path.join(tmp, 'not-built');
    const which = describeEmbedder({ builtinDir: nowhere });
    expect(which.ok).to.equal(false);
    if (which.ok) return;
    expect(which.code).to.equal('no_embedder');
    expect(which.reason).to.contain('npm run build:embedder').and.to.contain(nowhere);
    const garbled = path.join(tmp, 'garbled');
    mkdirSync(garbled);
    writeFileSync(path.join(garbled, 'meta.json'), '{"kind": "sta');
    expect(describeEmbedder({ builtinDir: garbled }).ok).to.equal(false);
    let error: unknown;
    await loadEmbedder({ builtinDir: nowhere }).catch((e: unknown) => (error = e));
    expect(String(error)).to.contain('npm run build:embedder');
  });
});
