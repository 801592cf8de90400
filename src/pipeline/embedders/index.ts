/**
 * Picks the active embedder: the transformer when its model folder holds model.onnx and a tokenizer, else the
 * built-in static one. `describeEmbedder` answers the same question from the file system alone (no model
 * loading), so the service can report which model is active, and why, cheaply. The transformer's module (and with
 * it onnxruntime, a 44 MB native library) is imported only when a transformer loads: a process that only ever
 * uses the built-in embedder never maps it.
 */
import path from 'node:path';
import { builtinEmbedderDir } from '../../paths.js';
import type { Embedder } from './types.js';
import { BUILD_COMMAND, readStaticMeta, StaticEmbedder, type StaticOptions } from './static.js';
import { missingTransformerFiles, readModelConfig } from './model-config.js';
import type { TransformerOptions } from './transformer.js';

export type { Embedder, EmbedderInfo } from './types.js';

export interface LoadEmbedderOptions {
  /** Folder of a sentence-transformers ONNX model (FILESIFT_MODEL_DIR or the pulled default). */
  modelDir?: string;
  /** Folder of the built-in embedder build (see defaultBuiltinDir()). */
  builtinDir: string;
  /** onnxruntime intra-op threads of a transformer (default 1). */
  intraOpThreads?: number;
  transformer?: Omit<TransformerOptions, 'intraOpThreads'>;
  /** The built-in embedder's options; `table`: the process's shared table (see builtin-memory.ts). */
  static?: StaticOptions;
}

export type EmbedderDescription =
  | {
      ok: true;
      kind: 'transformer';
      model: string;
      /** From config.json's hidden_size when present; the loaded embedder's info is authoritative. */
      dimension?: number;
      dir: string;
    }
  | {
      ok: true;
      kind: 'static';
      model: string;
      dimension: number;
      dir: string;
      /** Why the transformer is not used, when a model folder was configured. */
      fallbackReason?: string;
    }
  | { ok: false; code: 'no_embedder'; reason: string };

/** build/models/builtin-static at the package root (where `npm run build:embedder` writes). */
export function defaultBuiltinDir(): string {
  return builtinEmbedderDir;
}

/** The transformer folder: FILESIFT_MODEL_DIR when set, else `fallback` (e.g. <data dir>/models/all-MiniLM-L6-v2). */
export function modelDirFromEnv(env: NodeJS.ProcessEnv, fallback?: string): string | undefined {
  const fromEnv = env.FILESIFT_MODEL_DIR?.trim();
  return fromEnv !== undefined && fromEnv !== '' ? path.resolve(fromEnv) : fallback;
}

/** Whether a folder holds a transformer model (model.onnx + tokenizer.json or vocab.txt), from the file system only. */
export function isTransformerDir(dir: string): boolean {
  return missingTransformerFiles(dir).length === 0;
}

/** Which embedder loadEmbedder would use, from the file system only. */
export function describeEmbedder(options: Pick<LoadEmbedderOptions, 'modelDir' | 'builtinDir'>): EmbedderDescription {
  let fallbackReason: string | undefined;
  if (options.modelDir !== undefined) {
    const missing = missingTransformerFiles(options.modelDir);
    if (missing.length === 0) {
      const config = readModelConfig(options.modelDir);
      return { ok: true, kind: 'transformer', model: config.name, dimension: config.hiddenSize, dir: options.modelDir };
    }
    fallbackReason = `${options.modelDir} has no ${missing.join(' or ')}`;
  }
  const meta = readStaticMeta(options.builtinDir);
  if (meta === undefined) {
    return {
      ok: false,
      code: 'no_embedder',
      reason:
        (fallbackReason !== undefined ? `no transformer model (${fallbackReason}) and ` : 'no transformer model and ') +
        `the built-in embedder is not built in ${options.builtinDir}: run \`${BUILD_COMMAND}\``,
    };
  }
  return {
    ok: true,
    kind: 'static',
    model: meta.model,
    dimension: meta.dimension,
    dir: options.builtinDir,
    ...(fallbackReason !== undefined ? { fallbackReason } : {}),
  };
}

/** Loads the active embedder; throws with describeEmbedder's reason when none is available. */
export async function loadEmbedder(options: LoadEmbedderOptions): Promise<Embedder> {
  const which = describeEmbedder(options);
  if (!which.ok) throw new Error(which.reason);
  if (which.kind === 'transformer') {
    const { TransformerEmbedder } = await import('./transformer.js');
    return TransformerEmbedder.load(which.dir, { ...options.transformer, intraOpThreads: options.intraOpThreads });
  }
  return StaticEmbedder.load(which.dir, options.static);
}
