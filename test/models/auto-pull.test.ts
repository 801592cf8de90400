import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultModelDir } from '../../src/models/resolve.js';
import { eventually } from '../helpers/assert.js';
import { SMALL_BERT, writeBertModelDir } from '../helpers/bert-graph.js';
import { forEachEngine } from '../helpers/engines.js';
import { tempTree, type TempTree } from '../helpers/files.js';
import { hubForModelDir, startHub, type Hub } from '../helpers/hub.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { sharedPath } from '../helpers/shared.js';
import { readKnownUnder } from '../../src/store/repositories/known-under.js';

forEachEngine('FILESIFT_MODEL_PULL=auto', (engine) => {
  let tmp: string;
  let manifest: string;
  let badManifest: string;
  let hub: Hub;
  let bad: Hub;
  let tree: TempTree;
  let t: TestService | null = null;

  before(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'filesift-autopull-'));
    const source = writeBertModelDir(path.join(tmp, 'source'), SMALL_BERT, sharedPath('models', 'all-MiniLM-L6-v2-tokenizer', 'vocab.txt'));
    manifest = path.join(tmp, 'manifest.json');
    badManifest = path.join(tmp, 'bad.json');
    hub = await startHub(hubForModelDir(source, manifest));
    bad = await startHub(hubForModelDir(source, badManifest, ['model.onnx']));
    tree = await tempTree({ 'notes.md': '# Garden plans\n\nPlant tomatoes and basil along the south fence in May.\n', 'todo.txt': 'Fix the fence. Buy seeds.' });
  });
  after(async () => {
    await t?.destroy();
    await Promise.all([hub.close(), bad.close(), tree.remove()]);
    await rm(tmp, { recursive: true, force: true });
  });
  afterEach(async () => {
    hub.release();
    await t?.destroy();
    t = null;
    hub.requests.length = 0;
  });

  const embedderStatus = async (): Promise<Record<string, unknown>> => (await t!.request('GET', '/api/status/')).body.embedder as Record<string, unknown>;

  it('downloads the model in the background without delaying start-up, then switches to it and re-embeds', async () => {
    hub.hold(); // the download stays in progress until released
    t = await startTestService(engine, { FILESIFT_MODEL_PULL: 'auto', FILESIFT_MODEL_BASE_URL: hub.base, FILESIFT_MODEL_MANIFEST: manifest });
    const during = await embedderStatus();
    expect(during).to.include({ kind: 'static', ready: true });
    expect(during.pull).to.include({ state: 'downloading', model: 'small-bert', dir: defaultModelDir(t.dataDir), file_count: 3 });

    const run = t.service.indexing.startDirectory(tree.root, { kind: 'directory', force: false });
    await t.service.indexing.settled();
    expect(run.counts.indexed).to.equal(2);

    hub.release();
    await eventually(async () => (await embedderStatus()).kind === 'transformer', 30_000);
    await eventually(() => t!.service.indexing.lastReembed?.finishedAt, 30_000);
    const after = await embedderStatus();
    expect(after).to.include({ ready: true, model: 'generated-bert', dimension: 32 });
    expect(after.pull).to.include({ state: 'completed', code: null, error: null });
    expect(after.reembed).to.include({ state: 'completed', total: 2, indexed: 2 });
    const known = await readKnownUnder(t.service.store.api.files, tree.root);
    expect(known.map((k) => k.embeddingModel)).to.deep.equal(['transformer:generated-bert', 'transformer:generated-bert']);

    const types = t.service.bus.since(0).events.map((e) => e.type);
    expect(types).to.include.members(['model_pull_progress', 'model_pull_completed', 'embedder_changed']);
    const completed = t.service.bus.since(0).events.find((e) => e.type === 'model_pull_completed');
    expect(completed?.data).to.include({ ok: true, model: 'small-bert', dir: defaultModelDir(t.dataDir) });

    // Next start: the model is there, nothing is downloaded.
    hub.requests.length = 0;
    t = await t.restart();
    await t.service.models.ready;
    expect(await embedderStatus()).to.include({ kind: 'transformer', pull: null });
    expect(hub.requests).to.deep.equal([]);
  });

  it('reports a failed download and stays on the built-in embedder', async () => {
    t = await startTestService(engine, { FILESIFT_MODEL_PULL: 'auto', FILESIFT_MODEL_BASE_URL: bad.base, FILESIFT_MODEL_MANIFEST: badManifest });
    await t.service.models.pull!.settled();
    const status = await embedderStatus();
    expect(status).to.include({ kind: 'static' });
    expect(status.pull).to.include({ state: 'failed', code: 'checksum_mismatch', file: 'model.onnx' });
    expect(existsSync(path.join(defaultModelDir(t.dataDir), 'model.onnx'))).to.equal(false);
    const completed = t.service.bus.since(0).events.find((e) => e.type === 'model_pull_completed');
    expect(completed?.data).to.include({ ok: false, code: 'checksum_mismatch' });
  });

  it('never touches the network when off or when FILESIFT_MODEL_DIR is set', async () => {
    t = await startTestService(engine, { FILESIFT_MODEL_PULL: 'off', FILESIFT_MODEL_BASE_URL: hub.base, FILESIFT_MODEL_MANIFEST: manifest });
    expect(t.service.models.pull).to.equal(null);
    expect(await embedderStatus()).to.include({ pull: null });
    await t.destroy();
    t = await startTestService(engine, { FILESIFT_MODEL_PULL: 'auto', FILESIFT_MODEL_DIR: path.join(tmp, 'own'), FILESIFT_MODEL_BASE_URL: hub.base, FILESIFT_MODEL_MANIFEST: manifest });
    expect(t.service.models.pull).to.equal(null);
    expect(await embedderStatus()).to.include({ kind: 'static', pull: null });
  });
});
