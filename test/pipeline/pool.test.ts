import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { builtinHolders, holdBuiltin } from '../../src/pipeline/embedders/builtin-memory.js';
import { defaultBuiltinDir } from '../../src/pipeline/embedders/index.js';
import { StaticTokenizer } from '../../src/pipeline/embedders/static.js';
import { PipelinePool } from '../../src/pipeline/pool.js';
import { probeThreadMemory } from '../../src/lib/thread-memory.js';
import { SMALL_BERT, writeBertModelDir } from '../helpers/bert-graph.js';
import { eventually } from '../helpers/assert.js';
import { repoRoot, sharedPath } from '../helpers/shared.js';

describe('PipelinePool', () => {
  let tmp: string;
  let modelDir: string;
  let pool: PipelinePool;
  const timing = { timeoutMs: 60_000 };

  before(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'filesift-pool-'));
    modelDir = writeBertModelDir(path.join(tmp, 'bert'), SMALL_BERT, sharedPath('models', 'all-MiniLM-L6-v2-tokenizer', 'vocab.txt'));
  });
  after(() => rm(tmp, { recursive: true, force: true }));
  beforeEach(() => {
    // Unpaced, so that concurrent tasks reach both threads (the pacing has its own test below).
    pool = new PipelinePool({ threads: 2, modelDir: null, builtinDir: defaultBuiltinDir(), pacing: false });
  });
  afterEach(() => pool.destroy());

  it('starts no thread before its first task: a restart with nothing to index loads no model', async () => {
    expect(pool.stats().threads).to.equal(0);
    const outcome = await pool.embed({ path: '/x.txt', text: 'a first task', title: '' }, timing);
    expect(outcome.ok).to.equal(true);
    expect(pool.stats().threads).to.be.at.least(1);
  });

  it('re-embeds stored text: chunks with the title prepended, one vector each, no analysis', async () => {
    const outcome = await pool.embed({ path: '/x.txt', text: 'Sourdough bread needs a lively starter and patience.', title: 'Baking' }, timing);
    expect(outcome.ok).to.equal(true);
    if (!outcome.ok) return;
    expect(outcome.value.embedder).to.include({ kind: 'static', dimension: 100 });
    expect(outcome.value.chunks).to.have.length(1);
    expect(outcome.value.chunks[0]!.text).to.match(/^Baking\nSourdough/);
    expect(outcome.value.chunks[0]!.embedding).to.have.length(100);
  });

  it('switches every thread to another model without restarting them; the probe says which one loads', async () => {
    const before = await pool.probe(timing);
    expect(before.ok && before.value).to.include({ kind: 'static', dimension: 100 });
    // Both threads running, each with the built-in embedder loaded.
    await Promise.all([1, 2, 3, 4].map(() => pool.embed({ path: '/w.txt', text: 'warm up', title: '' }, timing)));
    const threads = pool.workers().map((w) => w.threadId).sort();
    pool.useEmbedder({ modelDir, builtinDir: defaultBuiltinDir() });
    expect(pool.embedderLocation.modelDir).to.equal(modelDir);
    const results = await Promise.all([1, 2, 3, 4].map(() => pool.embed({ path: '/y.txt', text: 'a lighthouse keeper', title: '' }, timing)));
    for (const r of results) expect(r.ok && r.value.embedder).to.deep.equal({ kind: 'transformer', model: 'generated-bert', dimension: 32 });
    const after = await pool.probe(timing);
    expect(after.ok && after.value).to.deep.equal({ kind: 'transformer', model: 'generated-bert', dimension: 32 });
    expect(pool.workers().map((w) => w.threadId).sort()).to.deep.equal(threads);
    // And back.
    pool.useEmbedder({ modelDir: null, builtinDir: defaultBuiltinDir() });
    const back = await pool.embed({ path: '/z.txt', text: 'a lighthouse keeper', title: '' }, timing);
    expect(back.ok && back.value.embedder).to.include({ kind: 'static', dimension: 100 });
  });

  it("threads embed with the process's one table: the pool reads it once, sends it, and drops it with the last thread", async () => {
    // Both threads at work from the first tasks (no pacing), so that both embed from the table.
    const idle = new PipelinePool({ threads: 2, modelDir: null, builtinDir: defaultBuiltinDir(), idleTimeoutMs: 300, pacing: false });
    const key = path.resolve(defaultBuiltinDir());
    const [id] = StaticTokenizer.fromVocabFile(path.join(defaultBuiltinDir(), 'vocab.txt')).ids('lighthouse');
    const watcher = holdBuiltin(defaultBuiltinDir()); // the same memory as the pool's (a query lane holds it so)
    try {
      const first = await Promise.all([1, 2, 3, 4].map(() => idle.embed({ path: '/l.txt', text: 'lighthouse', title: '' }, timing)));
      for (const r of first) expect(r.ok && r.value.chunks).to.have.length(1);
      expect(builtinHolders()[key]).to.deep.equal({ holders: 2, words: true, table: true });
      // Silence the word in the shared table: every thread's next vector for it has no direction (so no chunk).
      const weights = watcher.table()!.weights;
      const weight = weights[id!]!;
      weights[id!] = 0;
      try {
        const silenced = await Promise.all([1, 2, 3, 4].map(() => idle.embed({ path: '/l.txt', text: 'lighthouse', title: '' }, timing)));
        expect(idle.workers()).to.have.length(2);
        for (const r of silenced) expect(r.ok && r.value).to.include({ emptyChunks: 1 });
      } finally {
        weights[id!] = weight;
      }
      while (idle.stats().threads > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setImmediate(resolve));
      expect(builtinHolders()[key]?.holders).to.equal(1); // the pool let go once its last thread ended
    } finally {
      watcher.release();
      await idle.destroy();
    }
    expect(builtinHolders()).to.not.have.property(key);
  });

  it('reads no table while a transformer is the embedder', async () => {
    pool.useEmbedder({ modelDir, builtinDir: defaultBuiltinDir() });
    const outcome = await pool.embed({ path: '/y.txt', text: 'a lighthouse keeper', title: '' }, timing);
    expect(outcome.ok && outcome.value.embedder.kind).to.equal('transformer');
    expect(builtinHolders()[path.resolve(defaultBuiltinDir())]).to.deep.equal({ holders: 1, words: true, table: false });
  });

  it('reports a model that cannot load as a task error, not a crash', async () => {
    const broken = new PipelinePool({ threads: 1, modelDir: path.join(tmp, 'missing'), builtinDir: path.join(tmp, 'nowhere') });
    try {
      const probe = await broken.probe(timing);
      expect(probe).to.include({ ok: false, code: 'task_error' });
      expect(!probe.ok && probe.reason).to.match(/not built|no transformer/);
    } finally {
      await broken.destroy();
    }
  });

  it('never terminates a thread while it is still loading its modules (Node 20 would abort the process)', async function () {
    this.timeout(120_000);
    const fixture = fileURLToPath(new URL('./fixtures/pool-churn.js', import.meta.url));
    // Destroyed at moments spread over the ~0.6 s a thread takes to load; the child dies with SIGABRT if one is cut.
    const { stdout } = await promisify(execFile)(process.execPath, [fixture, '24', '800']);
    expect(stdout.trim()).to.equal('survived');
  });

  it('answers a cancelled task at once but lets its thread finish it (a thread cut inside onnxruntime aborts the process)', async () => {
    await pool.embed({ path: '/w.txt', text: 'warm up', title: '' }, timing);
    const threads = pool.workers().map((w) => w.threadId);
    const controller = new AbortController();
    const pending = pool.embed({ path: '/c.txt', text: 'a lighthouse keeper '.repeat(2000), title: '' }, { ...timing, signal: controller.signal });
    controller.abort();
    expect(await pending).to.deep.equal({ ok: false, code: 'aborted', reason: 'cancelled' });
    // The same threads still serve tasks: none was terminated.
    const next = await pool.embed({ path: '/d.txt', text: 'sourdough', title: '' }, timing);
    expect(next.ok).to.equal(true);
    expect(pool.workers().map((w) => w.threadId)).to.include.members(threads);
  });

  it('answers a task aborted while it waits for a thread at once, and gives its turn to the next (a hung file never holds up a cancel)', async () => {
    const misbehaving = path.join(repoRoot, 'dist', 'test', 'fixtures', 'misbehaving.worker.js');
    const one = new PipelinePool({ threads: 1, modelDir: null, builtinDir: defaultBuiltinDir(), workerFile: misbehaving });
    try {
      // The only thread takes a task that never ends: the next tasks wait for admission.
      const hung = one.embed({ path: '/hang.txt', text: 'never', title: '' }, { timeoutMs: 600_000 });
      await eventually(() => one.stats().threads === 1);
      const controller = new AbortController();
      const waiting = one.embed({ path: '/a.txt', text: 'alpha', title: '' }, { ...timing, signal: controller.signal });
      const behind = one.embed({ path: '/b.txt', text: 'beta', title: '' }, timing);
      await eventually(() => one.stats().queued === 2);
      controller.abort();
      expect(await waiting).to.deep.equal({ ok: false, code: 'aborted', reason: 'cancelled' });
      // The aborted task left the line: only the one behind it still waits.
      expect(one.stats().queued).to.equal(1);
      void hung;
      void behind;
    } finally {
      await one.destroy();
    }
  });

  it('works as many threads as demand keeps busy: all while tasks queue for them, one when a slower stage paces the files, the rest leave', async function () {
    this.timeout(180_000);
    // Cores enough, and always idle, that growing never waits for one free: the test machine's two, shared with
    // other work, would hold it at one or two.
    const idleCores = { windowMs: 250, cores: 64, idleMs: () => Date.now() * 64 };
    const paced = new PipelinePool({ threads: 3, modelDir: null, builtinDir: defaultBuiltinDir(), pace: idleCores, idleTimeoutMs: 1_000 });
    try {
      expect(paced.stats()).to.include({ threadLimit: 1, maxThreads: 3, threads: 0 });
      // Twelve files in flight whose tasks are the slow part (a transformer-bound run): they queue for threads.
      let stop = false;
      const text = 'a lighthouse keeper watched the storm over the harbour '.repeat(300);
      const embedLoop = (body: string, after: () => Promise<void>) =>
        Promise.all(
          Array.from({ length: 12 }, async () => {
            while (!stop) {
              const outcome = await paced.embed({ path: '/f.txt', text: body, title: '' }, timing);
              if (!outcome.ok) throw new Error(outcome.reason);
              await after();
            }
          }),
        );
      const saturating = embedLoop(text, async () => {});
      await eventually(() => paced.stats().threadLimit === 3 && paced.stats().threads === 3, 120_000);
      stop = true;
      await saturating;
      // The same twelve, each task short and then 40 ms alone in a serial stage (the store's one thread): the
      // threads stand idle most of the time, so the limit falls to one and the two threads no longer handed a
      // task leave after their idle timeout.
      stop = false;
      let serial = Promise.resolve();
      const store = () => (serial = serial.then(() => new Promise<void>((resolve) => setTimeout(resolve, 40))));
      const storeBound = embedLoop('sourdough', store);
      await eventually(() => paced.stats().threadLimit === 1 && paced.stats().threads === 1, 120_000);
      stop = true;
      await storeBound;
    } finally {
      await paced.destroy();
    }
  });

  it('a thread idle for a while collects its garbage: a bulk run does not end with every thread holding its churn', async function () {
    this.timeout(120_000);
    // V8's own memory reducer would also shrink an idle thread's heap, ~8 s after it goes idle: off for the thread
    // started here (V8 reads the flag as an isolate's heap is set up), so no deadline has to tell the two apart. The
    // thread collects after 5 s idle here, room for the probe below to come first on a loaded machine.
    setFlagsFromString('--no-memory-reducer');
    const idle = new PipelinePool({ threads: 1, modelDir: null, builtinDir: defaultBuiltinDir(), idleCollectMs: 5_000 });
    try {
      // A long text (~1,600,000 characters, under the default cap): its words and chunks live through the task, so
      // young collections promote them, and only a full collection frees them.
      const words = ['lighthouse', 'keeper', 'harbour', 'storm', 'signal', 'lamp', 'tide', 'vessel', 'coast', 'night'];
      const file = path.join(tmp, 'long.txt');
      await writeFile(file, Array.from({ length: 40_000 }, (_, i) => `The ${words[i % 10]} ${words[(i * 3) % 10]}${i} saw the ${words[(i * 7) % 10]}.`).join('\n'));
      const parsed = await idle.prepare({ path: file, parse: { maxFileBytes: 100e6, maxTextChars: 2e6 } }, timing);
      if (!parsed.ok || !parsed.value.ok) throw new Error(`could not parse ${file}`);
      const analyze = { provider: 'local', model: '', timeoutMs: 60_000, maxInputChars: 30_000 } as const;
      expect((await idle.enrich({ doc: parsed.value.doc, analyze, embed: true }, timing)).ok).to.equal(true);
      const [threadId] = idle.workers().map((w) => w.threadId);
      const heapUsed = async () => (await probeThreadMemory(100)).find((t) => t.threadId === threadId)?.heapUsed;
      // An idle thread answers (it waits on its port, not in Atomics.wait) ...
      const first = await heapUsed();
      expect(first, 'the idle thread answers the probe').to.be.a('number');
      // ... and once idle lets the long text's ~10 MB go: on Node 20 the heap stays at ~41 MB without the collection
      // (checked with the timer removed); Node 26's V8 frees most of it itself right after the task.
      const freed = first! - 4e6;
      let now = first!;
      for (const until = Date.now() + 60_000; now > freed && Date.now() < until; ) now = (await heapUsed()) ?? now;
      expect(now, `heap used ${(first! / 1e6).toFixed(1)} MB after the task`).to.be.below(freed);
    } finally {
      setFlagsFromString('--memory-reducer');
      await idle.destroy();
    }
  });
});
