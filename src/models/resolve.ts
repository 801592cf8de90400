import { statSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_MODEL, type ModelName, type ServiceConfig } from '../config.js';
import { defaultBuiltinDir, describeEmbedder, type EmbedderDescription } from '../pipeline/embedders/index.js';
import { TRANSFORMER_FILES } from '../pipeline/embedders/model-config.js';

/** Where a pulled transformer model lives, under the data directory: models/<name>. */
export function defaultModelDir(dataDir: string, model: ModelName = DEFAULT_MODEL): string {
  return path.join(dataDir, 'models', model);
}

export interface ActiveEmbedder {
  /** Identity stored with every file's chunks ('kind:model'); null when no embedder is available. */
  identity: string | null;
  dimension: number | null;
  description: EmbedderDescription;
  /** The transformer folder the pipeline threads load from; null when it is not to be used (failed to load). */
  modelDir: string | null;
  builtinDir: string;
}

export interface ResolveOptions {
  /** Why the transformer folder must not be used (it failed to load): the built-in embedder is used instead. */
  skipTransformer?: string;
}

/**
 * Which embedder the service uses: FILESIFT_MODEL_DIR (or a model pulled into the data directory) when it holds
 * a transformer, else the built-in static one. Decided from the file system, without loading a model.
 */
export function resolveEmbedder(config: Pick<ServiceConfig, 'modelDir' | 'dataDir' | 'model'>, options: ResolveOptions = {}): ActiveEmbedder {
  const configured = config.modelDir ?? defaultModelDir(config.dataDir, config.model);
  const modelDir = options.skipTransformer === undefined ? configured : null;
  const builtinDir = defaultBuiltinDir();
  let description = describeEmbedder({ modelDir: modelDir ?? undefined, builtinDir });
  if (options.skipTransformer !== undefined && description.ok && description.kind === 'static') {
    description = { ...description, fallbackReason: options.skipTransformer };
  }
  if (!description.ok) return { identity: null, dimension: null, description, modelDir, builtinDir };
  return {
    identity: `${description.kind}:${description.model}`,
    dimension: description.dimension ?? null,
    description,
    modelDir,
    builtinDir,
  };
}

/** Size and mtime of a folder's model.onnx ('' when absent): tells whether the model was replaced. */
export function modelStamp(dir: string): string {
  try {
    const s = statSync(path.join(dir, TRANSFORMER_FILES.model));
    return `${s.size}:${s.mtimeMs}`;
  } catch {
    return '';
  }
}
