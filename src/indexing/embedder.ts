import path from 'node:path';
import type { ServiceConfig } from '../config.js';
import { defaultBuiltinDir, describeEmbedder, type EmbedderDescription } from '../pipeline/embedders/index.js';

/** The default location of a pulled transformer model, under the data directory. */
export function defaultModelDir(dataDir: string): string {
  return path.join(dataDir, 'models', 'all-MiniLM-L6-v2');
}

export interface ActiveEmbedder {
  /** Identity stored with every file's chunks ('kind:model'); null when no embedder is available. */
  identity: string | null;
  dimension: number | null;
  description: EmbedderDescription;
  modelDir: string;
  builtinDir: string;
}

/**
 * Which embedder the service uses: FILESIFT_MODEL_DIR (or a model pulled into the data directory) when it holds
 * a transformer, else the built-in static one. Decided from the file system, without loading a model.
 */
export function resolveEmbedder(config: Pick<ServiceConfig, 'modelDir' | 'dataDir'>): ActiveEmbedder {
  const modelDir = config.modelDir ?? defaultModelDir(config.dataDir);
  const builtinDir = defaultBuiltinDir();
  const description = describeEmbedder({ modelDir, builtinDir });
  if (!description.ok) return { identity: null, dimension: null, description, modelDir, builtinDir };
  return {
    identity: `${description.kind}:${description.model}`,
    dimension: description.dimension ?? null,
    description,
    modelDir,
    builtinDir,
  };
}
