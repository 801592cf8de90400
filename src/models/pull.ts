/**
 * Downloads a transformer model folder (weights + tokenizer files) from a model hub over HTTP(S).
 * Each file streams to a temporary name beside its destination while its sha256 is computed, is checked
 * against the expected size and hash, and only then renamed into place, so a folder never holds a partial
 * or corrupt file under its real name. Files already present with the right hash are not fetched again.
 * The model file comes last: the folder only looks like a model (model.onnx + vocab.txt) once it is whole.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ModelName, ModelVariant } from '../config.js';
import { MODEL_CARD_FILE } from '../pipeline/embedders/model-config.js';

export interface PullFile {
  /** Path under the base URL, e.g. 'onnx/model_quantized.onnx'. */
  name: string;
  /** Path under destDir (default: name). */
  saveAs?: string;
  sha256: string;
  /** Expected size; also the progress total when the server sends no Content-Length. */
  bytes?: number;
}

export interface PullProgress {
  file: string; // saveAs
  fileIndex: number;
  fileCount: number;
  received: number;
  total?: number;
  phase: 'downloading' | 'done' | 'skipped';
}

export interface PullOptions {
  baseUrl: string;
  destDir: string;
  files: PullFile[];
  onProgress?: (progress: PullProgress) => void;
  signal?: AbortSignal;
  /** Give up on a file when no data arrives for this long (default 60 s). */
  idleTimeoutMs?: number;
  /**
   * Written to filesift-model.json before the files (it names the model: its pooling and query instruction follow
   * from the name, pipeline/embedders/known-models.ts). Not a model marker: the folder is one once model.onnx is.
   */
  card?: Record<string, string>;
}

export type PullFailureCode = 'http_error' | 'network_error' | 'size_mismatch' | 'checksum_mismatch' | 'aborted' | 'io_error';

export type PullResult =
  | { ok: true; dir: string; files: { file: string; path: string; skipped: boolean }[] }
  | { ok: false; code: PullFailureCode; file: string; reason: string };

/** Where all-MiniLM-L6-v2's ONNX export lives (Transformers.js layout). */
export const MINILM_BASE_URL = 'https://huggingface.co/Xenova/all-MiniLM-L6-v2/resolve/main';
export const MINILM_MODEL_NAME = 'all-MiniLM-L6-v2';
/** Where bge-small-en-v1.5's ONNX export lives (the same layout). */
export const BGE_SMALL_BASE_URL = 'https://huggingface.co/Xenova/bge-small-en-v1.5/resolve/main';

/**
 * The files of all-MiniLM-L6-v2 that the transformer embedder reads, with the sizes and sha256 hashes from
 * ../shared/models/all-MiniLM-L6-v2-tokenizer/SOURCE.md. 'int8' (default) is the dynamically quantised
 * export: a quarter of the size and about twice as fast on CPU; 'fp32' is the full-precision one.
 */
export function miniLmFiles(variant: 'int8' | 'fp32' = 'int8'): PullFile[] {
  const model: PullFile =
    variant === 'int8'
      ? {
          name: 'onnx/model_quantized.onnx',
          saveAs: 'model.onnx',
          bytes: 22972370,
          sha256: 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1',
        }
      : {
          name: 'onnx/model.onnx',
          saveAs: 'model.onnx',
          bytes: 90387606,
          sha256: '759c3cd2b7fe7e93933ad23c4c9181b7396442a2ed746ec7c1d46192c469c46e',
        };
  return [
    { name: 'vocab.txt', bytes: 231508, sha256: '07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3' },
    { name: 'config.json', bytes: 650, sha256: '7135149f7cffa1a573466c6e4d8423ed73b62fd2332c575bf738a0d033f70df7' },
    {
      name: 'tokenizer_config.json',
      bytes: 366,
      sha256: '9261e7d79b44c8195c1cada2b453e55b00aeb81e907a6664974b4d7776172ab3',
    },
    model,
  ];
}

/**
 * The files of bge-small-en-v1.5 the transformer embedder reads: tokenizer.json and the ONNX export, with the sizes
 * and sha256 hashes of the same files inside the Maven Central artifacts dev.langchain4j:langchain4j-embeddings-
 * bge-small-en-v15(-q):1.20.0-beta30, which name this repository's onnx/model(_quantized).onnx and tokenizer.json as
 * their source (scripts/fetch-models.sh records the same hashes). Its pooling and query instruction come from its
 * name (filesift-model.json), not from files.
 */
export function bgeSmallFiles(variant: ModelVariant = 'int8'): PullFile[] {
  const model: PullFile =
    variant === 'int8'
      ? { name: 'onnx/model_quantized.onnx', saveAs: 'model.onnx', bytes: 34014426, sha256: '6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4' }
      : { name: 'onnx/model.onnx', saveAs: 'model.onnx', bytes: 133093490, sha256: '828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35' };
  return [{ name: 'tokenizer.json', bytes: 711396, sha256: 'd241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66' }, model];
}

/** Each known model's hub folder and files. */
export const MODEL_HUB: Record<ModelName, { baseUrl: string; files: (variant: ModelVariant) => PullFile[] }> = {
  'all-MiniLM-L6-v2': { baseUrl: MINILM_BASE_URL, files: miniLmFiles },
  'bge-small-en-v1.5': { baseUrl: BGE_SMALL_BASE_URL, files: bgeSmallFiles },
};

async function sha256File(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function alreadyThere(file: string, spec: PullFile): Promise<boolean> {
  if (!existsSync(file)) return false;
  if (spec.bytes !== undefined && (await stat(file)).size !== spec.bytes) return false;
  return (await sha256File(file)) === spec.sha256.toLowerCase();
}

function fileUrl(baseUrl: string, name: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/${name.split('/').map(encodeURIComponent).join('/')}`;
}

class PullError extends Error {
  constructor(
    readonly code: PullFailureCode,
    message: string,
  ) {
    super(message);
  }
}

/** Downloads one file to `dest` via a temporary file; throws PullError on any expected failure. */
async function download(
  url: string,
  dest: string,
  spec: PullFile,
  options: PullOptions,
  report: (received: number, total?: number) => void,
): Promise<void> {
  const idleMs = options.idleTimeoutMs ?? 60_000;
  const controller = new AbortController();
  const onAbort = (): void => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let idle: NodeJS.Timeout | undefined;
  let stalled = false;
  const armIdle = (): void => {
    clearTimeout(idle);
    idle = setTimeout(() => {
      stalled = true;
      controller.abort();
    }, idleMs);
  };
  const tmp = `${dest}.partial-${randomBytes(4).toString('hex')}`;
  try {
    armIdle();
    let response: Response;
    try {
      response = await fetch(url, { signal: controller.signal, redirect: 'follow' });
    } catch (err) {
      throw networkError(err, stalled, options.signal, url);
    }
    if (!response.ok || response.body === null) {
      throw new PullError('http_error', `GET ${url} answered ${response.status} ${response.statusText}`.trim());
    }
    const lengthHeader = Number(response.headers.get('content-length'));
    const total = spec.bytes ?? (Number.isFinite(lengthHeader) && lengthHeader > 0 ? lengthHeader : undefined);
    const hash = createHash('sha256');
    let received = 0;
    const handle = await open(tmp, 'w');
    try {
      report(0, total);
      for await (const chunk of response.body) {
        armIdle();
        const bytes = chunk as Uint8Array;
        hash.update(bytes);
        await handle.write(bytes);
        received += bytes.byteLength;
        if (spec.bytes !== undefined && received > spec.bytes) break; // larger than expected: stop reading
        report(received, total);
      }
      await handle.sync();
    } catch (err) {
      throw err instanceof PullError ? err : networkError(err, stalled, options.signal, url);
    } finally {
      await handle.close();
    }
    if (spec.bytes !== undefined && received !== spec.bytes) {
      throw new PullError('size_mismatch', `${url}: got ${received} bytes, expected ${spec.bytes}`);
    }
    const digest = hash.digest('hex');
    if (digest !== spec.sha256.toLowerCase()) {
      throw new PullError('checksum_mismatch', `${url}: sha256 ${digest}, expected ${spec.sha256}; file discarded`);
    }
    await rename(tmp, dest);
  } finally {
    clearTimeout(idle);
    options.signal?.removeEventListener('abort', onAbort);
    await rm(tmp, { force: true });
  }
}

function networkError(err: unknown, stalled: boolean, signal: AbortSignal | undefined, url: string): PullError {
  if (signal?.aborted === true) return new PullError('aborted', `download of ${url} was cancelled`);
  if (stalled) return new PullError('network_error', `${url}: no data received for too long`);
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return new PullError('network_error', `${url}: ${err instanceof Error ? err.message : String(err)}${cause}`);
}

/** Downloads every file (in order) into destDir; stops at the first failure, which it returns as a value. */
export async function pullModel(options: PullOptions): Promise<PullResult> {
  const done: { file: string; path: string; skipped: boolean }[] = [];
  const fileCount = options.files.length;
  if (options.card) {
    try {
      await mkdir(options.destDir, { recursive: true });
      await writeFile(path.join(options.destDir, MODEL_CARD_FILE), `${JSON.stringify(options.card)}\n`);
    } catch (err) {
      return { ok: false, code: 'io_error', file: MODEL_CARD_FILE, reason: `${options.destDir}: ${(err as Error).message}` };
    }
  }
  for (const [fileIndex, spec] of options.files.entries()) {
    const file = spec.saveAs ?? spec.name;
    const dest = path.join(options.destDir, file);
    const progress = (phase: PullProgress['phase'], received: number, total?: number): void =>
      options.onProgress?.({ file, fileIndex, fileCount, received, total, phase });
    try {
      await mkdir(path.dirname(dest), { recursive: true });
      if (await alreadyThere(dest, spec)) {
        progress('skipped', spec.bytes ?? 0, spec.bytes);
        done.push({ file, path: dest, skipped: true });
        continue;
      }
      if (options.signal?.aborted === true) throw new PullError('aborted', 'pull was cancelled');
      let last = 0;
      await download(fileUrl(options.baseUrl, spec.name), dest, spec, options, (received, total) => {
        last = received;
        progress('downloading', received, total);
      });
      progress('done', last, spec.bytes ?? last);
      done.push({ file, path: dest, skipped: false });
    } catch (err) {
      if (err instanceof PullError) return { ok: false, code: err.code, file, reason: err.message };
      const code = (err as NodeJS.ErrnoException).code;
      if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) {
        return { ok: false, code: 'io_error', file, reason: `${dest}: ${(err as Error).message}` };
      }
      throw err;
    }
  }
  return { ok: true, dir: options.destDir, files: done };
}

/** Pulls all-MiniLM-L6-v2 (int8 by default) into destDir from its hub, or from `baseUrl` (a mirror). */
export function pullMiniLm(options: {
  destDir: string;
  variant?: 'int8' | 'fp32';
  baseUrl?: string;
  onProgress?: (progress: PullProgress) => void;
  signal?: AbortSignal;
}): Promise<PullResult> {
  return pullModel({
    baseUrl: options.baseUrl ?? MINILM_BASE_URL,
    destDir: options.destDir,
    files: miniLmFiles(options.variant),
    onProgress: options.onProgress,
    signal: options.signal,
  });
}
