/**
 * What a transformer model folder says about its model, read from small JSON files only (no model loading), so
 * the service can tell which model is active cheaply. Each setting comes from the first of: the folder's
 * sentence-transformers files, the model's entry in known-models.ts, a default.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { knownModel, type Pooling } from './known-models.js';
import type { WordPieceOptions } from './wordpiece.js';

/** Files that make a folder a transformer model: the graph, and a tokenizer (tokenizer.json, or an older vocab.txt). */
export const TRANSFORMER_FILES = { model: 'model.onnx', tokenizer: 'tokenizer.json', vocab: 'vocab.txt' } as const;

/** The file our tools write into a model folder they fill, naming the model: {"model", "variant", "source"}. */
export const MODEL_CARD_FILE = 'filesift-model.json';

export interface ModelConfig {
  name: string;
  /** 'int8', 'fp32', … when the folder's card says. */
  variant?: string;
  pooling: Pooling;
  queryPrefix: string;
  /** Longest window in tokens the model was trained for (sentence-transformers' max_seq_length), when known. */
  maxTokens?: number;
  hiddenSize?: number;
  maxPositions?: number;
  /** tokenizer.json when the folder has one, else vocab.txt (read with `tokenizer`'s options). */
  tokenizerFile: string;
  tokenizer: WordPieceOptions;
}

function readJson(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

/** The tokenizer file the folder holds, or undefined. */
export function tokenizerFileOf(dir: string): string | undefined {
  for (const f of [TRANSFORMER_FILES.tokenizer, TRANSFORMER_FILES.vocab]) if (existsSync(path.join(dir, f))) return f;
  return undefined;
}

/** Which of model.onnx and a tokenizer the folder lacks (empty: it is a transformer model folder). */
export function missingTransformerFiles(dir: string): string[] {
  const missing: string[] = [];
  if (!existsSync(path.join(dir, TRANSFORMER_FILES.model))) missing.push(TRANSFORMER_FILES.model);
  if (tokenizerFileOf(dir) === undefined) missing.push(`${TRANSFORMER_FILES.tokenizer} (or ${TRANSFORMER_FILES.vocab})`);
  return missing;
}

/** Reads the folder's small JSON files (all optional). Throws on a file that is not valid JSON. */
export function readModelConfig(dir: string): ModelConfig {
  const card = readJson(path.join(dir, MODEL_CARD_FILE));
  const config = readJson(path.join(dir, 'config.json'));
  const tok = readJson(path.join(dir, 'tokenizer_config.json'));
  const poolingFile = readJson(path.join(dir, '1_Pooling', 'config.json'));
  const stConfig = readJson(path.join(dir, 'sentence_bert_config.json'));
  const stPrompts = readJson(path.join(dir, 'config_sentence_transformers.json')).prompts;

  const nameOrPath = str(config._name_or_path);
  const name = str(card.model) ?? (nameOrPath !== undefined ? (nameOrPath.split(/[\\/]/).pop() ?? nameOrPath) : path.basename(dir));
  const known = knownModel(name);
  const filePooling: Pooling | undefined =
    poolingFile.pooling_mode_cls_token === true ? 'cls' : poolingFile.pooling_mode_mean_tokens === true ? 'mean' : undefined;
  const prompts = typeof stPrompts === 'object' && stPrompts !== null ? (stPrompts as Record<string, unknown>) : {};
  const variant = str(card.variant);
  const maxTokens = num(stConfig.max_seq_length) ?? known?.maxTokens;
  return {
    name,
    ...(variant !== undefined ? { variant } : {}),
    pooling: filePooling ?? known?.pooling ?? 'mean',
    queryPrefix: typeof prompts.query === 'string' ? prompts.query : (known?.queryPrefix ?? ''),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    hiddenSize: num(config.hidden_size) ?? known?.dimension,
    maxPositions: num(config.max_position_embeddings),
    tokenizerFile: tokenizerFileOf(dir) ?? TRANSFORMER_FILES.tokenizer,
    tokenizer: {
      lowercase: bool(tok.do_lower_case),
      stripAccents: bool(tok.strip_accents),
      unkToken: str(tok.unk_token),
      clsToken: str(tok.cls_token),
      sepToken: str(tok.sep_token),
      padToken: str(tok.pad_token),
    },
  };
}
