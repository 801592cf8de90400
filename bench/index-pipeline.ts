/**
 * Indexing throughput of the whole pipeline (walk → parse → analyze → embed → store), through the real service
 * in-process on a fresh PGlite database (or DATABASE_URL's server with --database-url), for each embedder and
 * thread count, next to the bare model alone on the same chunks with the same thread count.
 *
 *   npm run bench:index -- [DIR] [--limit N] [--transformer-limit N] [--threads 1,2] [--embedders static,int8,fp32]
 *                          [--database-url URL]
 *
 * DIR defaults to ../shared/datasets/scifact/files (5,183 abstracts). --limit caps every run's corpus (default:
 * all of it), --transformer-limit the transformer runs' (default 500: they are slow on 2 cores). The transformer is
 * a generated graph of exactly all-MiniLM-L6-v2's shape (random weights cost the same compute), int8 and fp32.
 *
 * Each (embedder, threads) pair runs in a child process of its own (this script with --child JSON), so peak RSS and
 * CPU time are its own:
 *   1. start the service, warm it up on 40 synthetic files per thread (model loads and the JIT's compiling of the
 *      per-file code are not timed: a short run would otherwise carry them);
 *   2. index the corpus, timed: files/s, chunks/s, MB/s, CPU seconds (all threads), peak RSS;
 *   3. re-chunk the stored text and title of every file exactly as the pipeline did, tokenise, batch per file as
 *      the embedder does, and run plain ONNX sessions (the built-in embedder: its kernel over one shared table) on
 *      N threads (bench/lib/bare-model.ts): the ceiling;
 *   4. pipeline/bare = pipeline chunks/s ÷ bare chunks/s; pipeline/bare CPU = bare CPU per chunk ÷ pipeline's;
 *   5. a second table: a file's CPU time by stage, each stage measured alone on up to 300 of the files spread over
 *      the corpus (bench/lib/breakdown.ts), and the upkeep after the run (keyword blocks sealed, the vector
 *      index's tail packed into its lists, ANALYZE) as timed in the run, and the rest (threads handing work over, messages, garbage collection, V8's compiler threads).
 * The machine is shared and noisy: compare ratios within a run, not absolute numbers across runs.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { defaultBuiltinDir } from '../src/pipeline/embedders/index.js';
import { readStaticMeta, StaticEmbedder } from '../src/pipeline/embedders/static.js';
import { readModelConfig } from '../src/pipeline/embedders/model-config.js';
import { loadModelTokenizer, TransformerEmbedder } from '../src/pipeline/embedders/transformer.js';
import type { Embedder } from '../src/pipeline/embedders/types.js';
import { startService } from '../src/service.js';
import { MINILM_L6, writeBertModelDir } from '../scripts/lib/bert-graph.js';
import { sharedPath } from '../test/helpers/shared.js';
import { batchesOf, runBare, type BareModel } from './lib/bare-model.js';
import { listFiles } from './lib/files.js';
import { listOption, positiveInt, positiveIntList, readBenchArgs, type BenchCommand, type BenchOptions } from './lib/cli.js';
import { spread, stageBreakdown, type Breakdown } from './lib/breakdown.js';
import { readKnownUnder } from '../src/store/repositories/known-under.js';

const EMBEDDERS = ['static', 'int8', 'fp32'] as const;
type EmbedderName = (typeof EMBEDDERS)[number];

interface ChildConfig {
  embedder: EmbedderName;
  modelDir: string | null;
  threads: number;
  corpus: string;
  databaseUrl: string | null;
}

interface ChildResult {
  embedder: EmbedderName;
  threads: number;
  files: number;
  failed: number;
  bytes: number;
  chunks: number;
  seconds: number;
  cpuSeconds: number;
  peakRssMb: number;
  bare: { files: number; chunks: number; seconds: number; cpuSeconds: number };
  breakdown: Breakdown;
  /** Wall time of the upkeep after the run (sealing keyword blocks, ANALYZE; store thread). */
  maintenanceSeconds: number;
  /** The run's own account: analyze and embed (chunk + model + pooling) in the pipeline threads, store writes. */
  stageSeconds: { analyze: number; embed: number; store: number };
}

const RESULT = 'RESULT ';
const WARMUP_FILES_PER_THREAD = 40;

const CLI = {
  command: 'npm run bench:index --',
  about: 'Indexing throughput of the whole pipeline against the bare model, per embedder and thread count.',
  positional: { name: 'DIR', description: 'the corpus (default ../shared/datasets/scifact/files)' },
  options: {
    limit: { type: 'string', value: 'N', description: "cap on every run's corpus (default all of it)" },
    'transformer-limit': { type: 'string', value: 'N', default: '500', description: "cap on the transformer runs' corpus, slow on 2 cores" },
    threads: { type: 'string', value: 'N,N', default: '1,2', description: 'thread counts to run each embedder with' },
    embedders: { type: 'string', value: EMBEDDERS.join(','), default: EMBEDDERS.join(','), description: 'embedders to run' },
    'database-url': { type: 'string', value: 'URL', description: 'index into that PostgreSQL server instead of a fresh PGlite database' },
    child: { type: 'string', value: 'JSON', description: 'internal: run one configuration and print its result (the parent starts these)' },
  },
} satisfies BenchCommand<BenchOptions>;

/** The first `limit` files of the corpus, copied into a temp folder (or the corpus itself when all are used). */
async function corpusOf(dir: string, files: string[], limit: number, tmp: string): Promise<string> {
  if (limit >= files.length) return dir;
  const target = path.join(tmp, `corpus-${limit}`);
  for (const file of files.slice(0, limit)) {
    const to = path.join(target, path.relative(dir, file));
    await mkdir(path.dirname(to), { recursive: true });
    await copyFile(file, to);
  }
  return target;
}

// ---------------------------------------------------------------------------------------------- child process

/** Files of distinct, ordinary text that make every pipeline thread load its parser, analyzer and embedder. */
async function warmupDir(root: string, count: number): Promise<string> {
  const dir = path.join(root, 'warmup');
  await mkdir(dir, { recursive: true });
  const words = 'lighthouse keeper harbour storm lantern tide rocks vessel beacon coast shipping night signal fog'.split(' ');
  for (let i = 0; i < count; i++) {
    const text = Array.from({ length: 400 }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ');
    await writeFile(path.join(dir, `warmup-${i}.txt`), `Warm-up ${i}\n\n${text}.\n`);
  }
  return dir;
}

/** Token rows of a file's chunks, as the embedder feeds them to its session. */
type Tokenize = (text: string) => number[];

async function child(config: ChildConfig): Promise<ChildResult> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'filesift-bench-index-'));
  try {
    const env: Record<string, string> = { HOST: '127.0.0.1', PORT: '0', FILESIFT_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    if (config.modelDir) env.FILESIFT_MODEL_DIR = config.modelDir;
    if (config.databaseUrl) env.DATABASE_URL = config.databaseUrl;
    const serviceConfig = loadConfig(env);
    const service = await startService(serviceConfig, { logger: createLogger(serviceConfig.logLevel), modelCheckIntervalMs: 0 });
    const update = await service.settings.update({ 'queue.max_concurrency': config.threads });
    if (!update.ok) throw new Error(`cannot set the thread count: ${JSON.stringify(update)}`);
    await service.models.ready;
    const expected = config.embedder === 'static' ? 'static:' : 'transformer:';
    if (!service.models.active.identity?.startsWith(expected)) throw new Error(`wrong embedder: ${service.models.active.identity}`);

    // File runs warm up: the measured directory run must start from an empty database (the initial indexing of a
    // corpus). Enough files that the JIT has compiled the per-file code of every thread (main, store, pipeline) before the
    // timing starts: with a few files, V8's background compilation of that code lands in a short run's CPU time.
    const warm = await warmupDir(dataDir, WARMUP_FILES_PER_THREAD * config.threads);
    for (const file of await listFiles(warm)) service.indexing.startFile(file, { force: false });
    await service.indexing.settled();
    const chunksBefore = (await service.store.api.embeddings.chunkSummary()).reduce((n, s) => n + s.chunks, 0);

    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const run = service.indexing.startDirectory(config.corpus, { kind: 'directory', force: false });
    await service.indexing.settled();
    // And the upkeep after the run (the keyword index's new documents sealed into blocks, the vector index's tail
    // packed into its lists, statistics).
    const u0 = performance.now();
    await service.upkeep.idle();
    const maintenanceSeconds = (performance.now() - u0) / 1000;
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(c0);
    const peakRssMb = process.resourceUsage().maxRSS / 1024;
    const chunks = (await service.store.api.embeddings.chunkSummary()).reduce((n, s) => n + s.chunks, 0) - chunksBefore;
    const known = (await readKnownUnder(service.store.api.files, config.corpus)).sort((a, b) => a.id - b.id);
    const bytes = known.reduce((n, k) => n + k.size, 0);

    // The bare model's input: the very chunks the pipeline made, from the stored text and title.
    const { embedder, tokenize, batchSize, model } = await bareSetup(config);
    const files: number[][][][] = [];
    const paths: string[] = [];
    for (const k of known) {
      if (k.status !== 'indexed') continue;
      const source = await service.store.api.embeddings.source(k.id);
      if (!source) continue;
      const rows = embedder.chunk(source.content, source.title).map((c) => tokenize(c.text));
      if (rows.length > 0) files.push(batchesOf(rows, batchSize));
      paths.push(k.path);
    }
    await service.close('benchmark done');
    const breakdown = await stageBreakdown(spread(paths, 300), embedder);
    await embedder.close();
    const bare = await runBare({ model, threads: config.threads, files });

    return {
      embedder: config.embedder,
      threads: config.threads,
      files: run.counts.processed,
      failed: run.counts.failed,
      bytes,
      chunks,
      seconds,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      peakRssMb,
      bare: { files: files.length, chunks: bare.chunks, seconds: bare.seconds, cpuSeconds: bare.cpuSeconds },
      breakdown,
      maintenanceSeconds,
      stageSeconds: { ...run.stageSeconds },
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function bareSetup(config: ChildConfig): Promise<{ embedder: Embedder; tokenize: Tokenize; batchSize: number; model: BareModel }> {
  if (config.modelDir) {
    const embedder = await TransformerEmbedder.load(config.modelDir);
    const modelConfig = readModelConfig(config.modelDir);
    const tokenizer = loadModelTokenizer(config.modelDir, modelConfig);
    // TransformerEmbedder defaults: windows of the model's max_seq_length (256 when unknown), batches of 8.
    const maxTokens = modelConfig.maxTokens ?? 256;
    const model: BareModel = { kind: 'onnx', modelPath: path.join(config.modelDir, 'model.onnx'), output: 'last_hidden_state' };
    return { embedder, tokenize: (t) => tokenizer.encode(t, maxTokens), batchSize: 8, model };
  }
  const dir = defaultBuiltinDir();
  if (!readStaticMeta(dir)) throw new Error('the built-in embedder is not built');
  const embedder = await StaticEmbedder.load(dir);
  // The bare threads share this one table, as the pipeline threads share the pool's.
  return { embedder, tokenize: (t) => embedder.tokenizer.ids(t), batchSize: 64, model: { kind: 'static', table: embedder.table.shared() } };
}

// --------------------------------------------------------------------------------------------- parent process

function runChild(config: ChildConfig): Promise<ChildResult> {
  const script = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [script, '--child', JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(RESULT));
      if (code === 0 && line) resolve(JSON.parse(line.slice(RESULT.length)) as ChildResult);
      else reject(new Error(`benchmark child for ${config.embedder}/${config.threads} exited with ${code}:\n${out}`));
    });
  });
}

const round = (n: number, digits = 1): number => Math.round(n * 10 ** digits) / 10 ** digits;

function row(r: ChildResult): Record<string, string | number> {
  const chunksPerSecond = r.chunks / r.seconds;
  const bareChunksPerSecond = r.bare.chunks / r.bare.seconds;
  return {
    embedder: r.embedder === 'static' ? 'built-in static' : `MiniLM-L6 shape ${r.embedder}`,
    threads: r.threads,
    files: r.files,
    chunks: r.chunks,
    MB: round(r.bytes / 1e6),
    'files/s': round(r.files / r.seconds),
    'chunks/s': round(chunksPerSecond),
    'MB/s': round(r.bytes / 1e6 / r.seconds, 2),
    'CPU s': round(r.cpuSeconds),
    'CPU ms/file': round((r.cpuSeconds * 1000) / r.files, 2),
    'peak RSS MB': Math.round(r.peakRssMb),
    'bare chunks/s': round(bareChunksPerSecond),
    'pipeline/bare': round(chunksPerSecond / bareChunksPerSecond, 2),
    // CPU time per chunk, bare over pipeline: steadier than wall time when other processes share the cores.
    'pipeline/bare CPU': round(r.bare.cpuSeconds / r.bare.chunks / (r.cpuSeconds / r.chunks), 2),
  };
}

/** CPU ms per file by stage; 'orchestration' is what the pipeline spent beyond the stages measured alone. */
function breakdownRow(r: ChildResult): Record<string, string | number> {
  const b = r.breakdown;
  const pipeline = (r.cpuSeconds * 1000) / r.files;
  const model = (r.bare.cpuSeconds * 1000) / r.files;
  const maintenance = (r.maintenanceSeconds * 1000) / r.files;
  const stages = b.parseMs + b.analyzeMs + b.chunkMs + b.storeMs + maintenance;
  return {
    embedder: r.embedder,
    threads: r.threads,
    'pipeline CPU ms/file': round(pipeline, 2),
    'model (bare)': round(model, 2),
    // Chunking + model + pooling inside the pipeline threads (wall): above the bare model when threads compete.
    'embed in pipeline': round((r.stageSeconds.embed * 1000) / r.files, 2),
    parse: round(b.parseMs, 2),
    analyze: round(b.analyzeMs, 2),
    'chunk+tokenize': round(b.chunkMs, 2),
    'store write': round(b.storeMs, 2),
    'upkeep after': round(maintenance, 2),
    'rest (threads, messages, GC)': round(pipeline - model - stages, 2),
    'model share': `${Math.round((model / pipeline) * 100)}%`,
  };
}

interface ParentOptions {
  dir: string | undefined;
  limit: number | undefined;
  transformerLimit: number;
  threadCounts: number[];
  embedders: EmbedderName[];
  databaseUrl: string | null;
}

async function parent(options: ParentOptions): Promise<void> {
  const { threadCounts, embedders, databaseUrl } = options;
  const dir = path.resolve(options.dir ?? sharedPath('datasets', 'scifact', 'files'));
  const all = await listFiles(dir);
  const limit = options.limit ?? all.length;
  const transformerLimit = Math.min(limit, options.transformerLimit);

  const tmp = await mkdtemp(path.join(os.tmpdir(), 'filesift-bench-corpus-'));
  try {
    const rows: Record<string, string | number>[] = [];
    const results: ChildResult[] = [];
    for (const embedder of embedders) {
      const n = embedder === 'static' ? limit : transformerLimit;
      const corpus = await corpusOf(dir, all, n, tmp);
      let modelDir: string | null = null;
      if (embedder !== 'static') {
        modelDir = path.join(tmp, `minilm-${embedder}`);
        const vocab = sharedPath('models', 'all-MiniLM-L6-v2-tokenizer', 'vocab.txt');
        writeBertModelDir(modelDir, { ...MINILM_L6, quantized: embedder === 'int8' }, vocab);
        const size = (await stat(path.join(modelDir, 'model.onnx'))).size;
        console.error(`generated ${embedder} graph of all-MiniLM-L6-v2's shape (${round(size / 1e6)} MB)`);
      }
      for (const threads of threadCounts) {
        console.error(`${embedder}, ${threads} thread(s), ${n} files from ${dir} ...`);
        const result = await runChild({ embedder, modelDir, threads, corpus, databaseUrl });
        results.push(result);
        rows.push(row(result));
        console.error(JSON.stringify(rows[rows.length - 1]));
      }
    }
    console.table(rows);
    console.log('CPU milliseconds per file, by stage (each measured alone on one thread; model = the bare run):');
    console.table(results.map(breakdownRow));
    const scaling = embedders.flatMap((e) => {
      const one = results.find((r) => r.embedder === e && r.threads === 1);
      const two = results.find((r) => r.embedder === e && r.threads === 2);
      return one && two ? [`${e}: ${round(two.chunks / two.seconds / (one.chunks / one.seconds), 2)}x pipeline, ${round(two.bare.chunks / two.bare.seconds / (one.bare.chunks / one.bare.seconds), 2)}x bare`] : [];
    });
    if (scaling.length > 0) console.log(`2 threads vs 1: ${scaling.join('; ')}`);
    console.log(`${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}); load average (1 min) at the end: ${os.loadavg()[0]?.toFixed(2)}`);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

const args = readBenchArgs(CLI, ({ values, positional }) => ({
  child: values.child,
  parent: {
    dir: positional,
    limit: positiveInt('limit', values.limit, undefined),
    transformerLimit: positiveInt('transformer-limit', values['transformer-limit']),
    threadCounts: positiveIntList('threads', values.threads),
    embedders: listOption('embedders', values.embedders, EMBEDDERS),
    databaseUrl: values['database-url'] ?? null,
  },
}));
const main =
  args.child !== undefined
    ? child(JSON.parse(args.child) as ChildConfig).then((r) => void process.stdout.write(`${RESULT}${JSON.stringify(r)}\n`))
    : parent(args.parent);
main.then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
