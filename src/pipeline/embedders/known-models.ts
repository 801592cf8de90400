/**
 * The transformer models filesift knows by name, and how each must be run to give the embeddings it was trained
 * for. A model folder names its model in `filesift-model.json` (written by `filesift pull-model` and by
 * scripts/fetch-models.sh), else in config.json's `_name_or_path`. A folder of another sentence-transformers model
 * still works: its own 1_Pooling/config.json, sentence_bert_config.json and config_sentence_transformers.json say
 * the same things (model-config.ts reads them first), and without them it is mean-pooled with no query prefix.
 */

import type { ModelName } from '../../config.js';

/** How token vectors become one text vector: their mask-weighted mean, or the [CLS] token's vector. */
export type Pooling = 'mean' | 'cls';

export interface KnownModel {
  pooling: Pooling;
  /** Put before a search query, never before a document: the model's retrieval instruction. */
  queryPrefix: string;
  /** sentence-transformers' max_seq_length: the longest window in tokens, [CLS] and [SEP] included. */
  maxTokens: number;
  /** Vector dimension (hidden size). */
  dimension: number;
  /** Where its published figures come from (for the README and the benchmarks). */
  card: string;
}

export const KNOWN_MODELS = {
  /** Mean pooling, no instruction, 256 tokens (its sentence_bert_config.json). Apache-2.0. */
  'all-MiniLM-L6-v2': {
    pooling: 'mean',
    queryPrefix: '',
    maxTokens: 256,
    dimension: 384,
    card: 'https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2',
  },
  /**
   * [CLS] pooling and the query instruction of the model card ("for short query to long passage retrieval,
   * add an instruction to the query"), 512 tokens. MIT.
   */
  'bge-small-en-v1.5': {
    pooling: 'cls',
    queryPrefix: 'Represent this sentence for searching relevant passages: ',
    maxTokens: 512,
    dimension: 384,
    card: 'https://huggingface.co/BAAI/bge-small-en-v1.5',
  },
} as const satisfies Record<ModelName, KnownModel>;

export function knownModel(name: string): KnownModel | undefined {
  return Object.hasOwn(KNOWN_MODELS, name) ? KNOWN_MODELS[name as ModelName] : undefined;
}
