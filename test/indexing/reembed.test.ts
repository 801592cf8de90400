import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AnyBusEvent } from '../../src/events/types.js';
import type { IndexRun } from '../../src/indexing/run.js';
import { defaultModelDir } from '../../src/models/resolve.js';
import { eventually } from '../helpers/assert.js';
import { SMALL_BERT, writeBertModelDir } from '../helpers/bert-graph.js';
import { forEachEngine } from '../helpers/engines.js';
import { tempTree, type TempTree } from '../helpers/files.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { sharedPath } from '../helpers/shared.js';
import { readKnownUnder } from '../../src/store/repositories/known-under.js';

const REPORT = 'Quarterly revenue of the bakery grew because sourdough bread sold well.\n\nThe ovens ran at full capacity all winter.';
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const TRANSFORMER = 'transformer:generated-bert';

forEachEngine('re-embedding after a model change', (engine) => {
  let tmp: string;
  let modelDir: string;
  let tree: TempTree;
  let t: TestService;

  before(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'filesift-reembed-'));
    modelDir = writeBertModelDir(path.join(tmp, 'small-bert'), SMALL_BERT, sharedPath('models', 'all-MiniLM-L6-v2-tokenizer', 'vocab.txt'));
    t = await startTestService(engine);
  });
  after(async () => {
    await t.destroy();
    await rm(tmp, { recursive: true, force: true });
  });
  beforeEach(async () => {
    tree = await tempTree({
      'notes.md': '# Garden plans\n\nPlant tomatoes and basil along the south fence in May.\n',
      'report.txt': REPORT,
      'sub/copy-of-report.txt': REPORT,
      'picture.png': PNG,
      'broken.pdf': '%PDF-1.7\nthis is not really a pdf',
    });
  });
  afterEach(async () => {
    // Each test starts from an empty index, on the built-in embedder.
    await t.service.store.api.files.removeUnder(tree.root);
    await rm(defaultModelDir(t.dataDir), { recursive: true, force: true });
    t = await t.restartWith({}, {});
    await tree.remove();
  });

  async function indexTree(): Promise<void> {
    const run = t.service.indexing.startDirectory(tree.root, { kind: 'directory', force: false });
    await t.service.indexing.settled();
    expect(run.counts).to.include({ indexed: 4, failed: 1 });
  }

  /** A semantic-only search in the tree: it only finds chunks of the model the query was embedded with. */
  async function semanticSearch(query: string): Promise<{ file: { filename: string }; semantic_score: number }[]> {
    const res = await t.request('POST', '/api/search/', { query, directory: tree.root, mode: 'semantic' });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.results as { file: { filename: string }; semantic_score: number }[];
  }

  async function records(): Promise<Record<string, Record<string, unknown>>> {
    const known = await readKnownUnder(t.service.store.api.files, tree.root);
    const entries = await Promise.all(known.map(async (k) => [path.relative(tree.root, k.path), await t.service.store.api.files.get(k.id)] as const));
    return Object.fromEntries(entries.map(([name, record]) => [name, record as unknown as Record<string, unknown>]));
  }

  /** Waits for the start-up check, then for the re-embed run it started (if any). */
  async function reembedded() {
    await t.service.models.ready;
    await t.service.indexing.settled();
    return t.service.indexing.lastReembed;
  }

  it('re-embeds every indexed file from its stored text when a model folder is added, and says so in the status', async () => {
    await indexTree();
    const before = await records();
    expect(before['notes.md']!.embedding_model).to.match(/^static:/);
    expect(await t.service.store.api.embeddings.chunkSummary()).to.have.length(1).and.to.have.nested.property('[0].dim', 100);

    t = await t.restartWith({ FILESIFT_MODEL_DIR: modelDir });
    const run = await reembedded();
    expect(run, 'a re-embed run').to.not.equal(null);
    expect(run!.kind).to.equal('reembed');
    expect(run!.total).to.equal(4); // the failed PDF has nothing to re-embed
    expect(run!.counts).to.include({ processed: 4, indexed: 4, failed: 0 });

    const after = await records();
    for (const name of ['notes.md', 'report.txt', 'sub/copy-of-report.txt', 'picture.png']) {
      const [was, now] = [before[name]!, after[name]!];
      expect(now.embedding_model, name).to.equal(TRANSFORMER);
      expect(now.chunk_count, name).to.be.greaterThan(0);
      // Only the embeddings changed: the analysis and text are the stored ones.
      expect(now, name).to.include({ title: was.title, summary: was.summary, content_hash: was.content_hash, status: 'indexed' });
    }
    expect(after['broken.pdf']).to.include({ status: 'failed', embedding_model: '' });
    // No vector of the old model is left to mix into the new model's search.
    expect(await t.service.store.api.embeddings.chunkSummary()).to.deep.equal([
      { model: TRANSFORMER, dim: 32, chunks: (Object.values(after) as { chunk_count: number }[]).reduce((s, r) => s + r.chunk_count, 0) },
    ]);

    // Re-embedding never parses or analyzes: the run's only stage events are file_embedded / file_indexed.
    const events = t.service.bus.since(0).events.filter((e) => (e.data as { run_id?: string }).run_id === run!.id);
    const types = new Set(events.map((e) => e.type));
    expect([...types].sort()).to.deep.equal(['file_embedded', 'file_indexed', 'index_run_completed', 'index_run_progress', 'index_run_started']);
    // Identical content is embedded once and copied.
    const indexed = events.filter((e) => e.type === 'file_indexed').map((e) => e.data as { reused: boolean });
    expect(indexed.filter((e) => e.reused)).to.have.length(1);
    expect(events.filter((e) => e.type === 'file_embedded').map((e) => (e.data as { model: string }).model)).to.deep.equal([TRANSFORMER, TRANSFORMER, TRANSFORMER]);

    const status = (await t.request('GET', '/api/status/')).body.embedder as Record<string, unknown>;
    expect(status).to.include({ ok: true, ready: true, kind: 'transformer', model: 'generated-bert', identity: TRANSFORMER, dimension: 32, search: 'hybrid' });
    expect(status.reembed).to.include({ run_id: run!.id, state: 'completed', total: 4, processed: 4, indexed: 4, failed: 0 });

    // A scan now finds nothing to do.
    const scan = t.service.indexing.startDirectory(tree.root, { kind: 'directory', force: false });
    await t.service.indexing.settled();
    expect(scan.counts).to.include({ skipped: 5, indexed: 0 });
  });

  it('goes back to the built-in embedder when the model folder is gone, and needs no re-embed at the next start', async () => {
    t = await t.restartWith({ FILESIFT_MODEL_DIR: modelDir });
    await indexTree();
    expect((await records())['notes.md']!.embedding_model).to.equal(TRANSFORMER);

    t = await t.restartWith({});
    const run = await reembedded();
    expect(run!.counts).to.include({ indexed: 4, failed: 0 });
    const after = await records();
    expect(after['notes.md']!.embedding_model).to.match(/^static:/);
    const summary = await t.service.store.api.embeddings.chunkSummary();
    expect(summary.map((s) => [s.model.split(':')[0], s.dim])).to.deep.equal([['static', 100]]);
    const status = (await t.request('GET', '/api/status/')).body.embedder as Record<string, unknown>;
    expect(status).to.include({ kind: 'static', dimension: 100 });

    t = await t.restart();
    expect(await reembedded()).to.equal(null);
  });

  it('switches while running when a model appears or goes, and a scan meanwhile re-embeds without re-parsing', async () => {
    t = await t.restartWith({}, { modelCheckIntervalMs: 100 });
    await indexTree();
    const seen: AnyBusEvent[] = [];
    t.service.bus.subscribe((e) => seen.push(e));
    writeBertModelDir(defaultModelDir(t.dataDir), SMALL_BERT, path.join(modelDir, 'vocab.txt'));
    const changed = await eventually(() => seen.find((e) => e.type === 'embedder_changed'), 20_000);
    expect(changed!.data).to.include({ kind: 'transformer', model: 'generated-bert', dimension: 32 });
    expect((changed!.data as { previous: string }).previous).to.match(/^static:/);
    await eventually(() => t.service.indexing.lastReembed?.finishedAt, 20_000);
    await t.service.indexing.settled();
    expect(Object.values(await records()).filter((r) => r.status === 'indexed').map((r) => r.embedding_model)).to.deep.equal([TRANSFORMER, TRANSFORMER, TRANSFORMER, TRANSFORMER]);
    // Queries follow the model: only the transformer's chunks are left, and semantic search finds them.
    expect((await semanticSearch('sourdough bread bakery')).length).to.be.greaterThan(0);

    // The model goes away again, and a scan starts at that very moment, racing the re-embed run: whichever
    // takes a file first re-embeds it from the stored text; nothing is parsed or analyzed again.
    seen.length = 0;
    let scan: IndexRun | undefined;
    t.service.bus.subscribe((e) => {
      if (e.type === 'embedder_changed' && !scan) scan = t.service.indexing.startDirectory(tree.root, { kind: 'directory', force: false });
    });
    await rm(path.join(defaultModelDir(t.dataDir), 'model.onnx'));
    await eventually(async () => Object.values(await records()).every((r) => r.status === 'failed' || String(r.embedding_model).startsWith('static:')), 20_000);
    await t.service.indexing.settled();
    expect(scan!.counts).to.include({ processed: 5, failed: 0 });
    expect(seen.filter((e) => e.type === 'file_parsing' || e.type === 'file_summarized')).to.deep.equal([]);
    expect(seen.filter((e) => e.type === 'file_embedded')).to.have.length(3); // one of the two identical files is copied
    const hits = await semanticSearch('sourdough bread bakery');
    expect(hits.map((h) => h.file.filename)).to.include('report.txt');
  });

  it('falls back to the built-in embedder, with the reason, when the model cannot be loaded, and keeps the index', async () => {
    await indexTree();
    const broken = path.join(tmp, 'broken-model');
    writeBertModelDir(broken, SMALL_BERT, path.join(modelDir, 'vocab.txt'));
    await writeFile(path.join(broken, 'model.onnx'), 'not an onnx graph');
    t = await t.restartWith({ FILESIFT_MODEL_DIR: broken });
    expect(await reembedded()).to.equal(null); // still the built-in model: nothing to redo
    const status = (await t.request('GET', '/api/status/')).body.embedder as Record<string, unknown>;
    expect(status).to.include({ ok: true, ready: true, kind: 'static', dimension: 100 });
    expect(status.fallback_reason).to.match(/could not be loaded/);
    expect(Object.values(await records()).filter((r) => r.status === 'indexed')).to.have.length(4);
  });
});
