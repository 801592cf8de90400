/**
 * What a model pull fetches: a known model (all-MiniLM-L6-v2 or bge-small-en-v1.5, int8 or fp32) from its hub or a
 * mirror, or, for tests and
 * advanced use, the files a JSON manifest lists (any sentence-transformers folder, with its own hashes):
 *
 *   { "model": "my-model", "files": [{ "name": "onnx/model.onnx", "saveAs": "model.onnx", "sha256": "…", "bytes": 123 }] }
 *
 * `model` is a label for messages; `saveAs` and `bytes` are optional. Every file needs a sha256.
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_MODEL, type ModelName } from '../config.js';
import { MODEL_HUB, type PullFile } from './pull.js';

export interface PullPlan {
  /** Label for messages and events, e.g. 'all-MiniLM-L6-v2 (int8)'. */
  model: string;
  baseUrl: string;
  files: PullFile[];
  /** filesift-model.json for the folder (known models only: it names the model and variant). */
  card?: Record<string, string>;
}

export interface PullPlanOptions {
  /** Which known model (default all-MiniLM-L6-v2). */
  model?: ModelName;
  variant?: 'int8' | 'fp32';
  /** A mirror of the hub (default: the hub). */
  baseUrl?: string | null;
  /** A manifest file to pull instead of the model's files. */
  manifest?: string | null;
}

export type PullPlanResult = { ok: true; plan: PullPlan } | { ok: false; reason: string };

const SHA256 = /^[0-9a-f]{64}$/i;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks a manifest's shape; every problem names the entry. */
export function parsePullManifest(text: string, source: string): { ok: true; model: string; files: PullFile[] } | { ok: false; reason: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `${source} is not valid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  if (!isRecord(parsed) || !Array.isArray(parsed.files) || parsed.files.length === 0) {
    return { ok: false, reason: `${source} must be an object with a non-empty "files" array` };
  }
  const files: PullFile[] = [];
  for (const [i, entry] of parsed.files.entries()) {
    const where = `${source}: files[${i}]`;
    if (!isRecord(entry)) return { ok: false, reason: `${where} must be an object` };
    const { name, saveAs, sha256, bytes } = entry;
    if (typeof name !== 'string' || name === '' || name.split('/').includes('..')) {
      return { ok: false, reason: `${where}.name must be a relative path` };
    }
    if (saveAs !== undefined && (typeof saveAs !== 'string' || saveAs === '' || saveAs.split(/[\\/]/).includes('..'))) {
      return { ok: false, reason: `${where}.saveAs must be a relative path` };
    }
    if (typeof sha256 !== 'string' || !SHA256.test(sha256)) return { ok: false, reason: `${where}.sha256 must be 64 hex digits` };
    if (bytes !== undefined && (typeof bytes !== 'number' || !Number.isInteger(bytes) || bytes < 0)) {
      return { ok: false, reason: `${where}.bytes must be a non-negative integer` };
    }
    files.push({ name, sha256, ...(saveAs !== undefined ? { saveAs } : {}), ...(bytes !== undefined ? { bytes } : {}) });
  }
  const model = typeof parsed.model === 'string' && parsed.model !== '' ? parsed.model : 'model from manifest';
  return { ok: true, model, files };
}

export function pullPlan(options: PullPlanOptions = {}): PullPlanResult {
  const model = options.model ?? DEFAULT_MODEL;
  const hub = MODEL_HUB[model];
  const baseUrl = options.baseUrl ?? hub.baseUrl;
  if (options.manifest) {
    let text: string;
    try {
      text = readFileSync(options.manifest, 'utf8');
    } catch (err) {
      return { ok: false, reason: `cannot read the manifest ${options.manifest}: ${err instanceof Error ? err.message : String(err)}` };
    }
    const manifest = parsePullManifest(text, options.manifest);
    if (!manifest.ok) return manifest;
    return { ok: true, plan: { model: manifest.model, baseUrl, files: manifest.files } };
  }
  const variant = options.variant ?? 'int8';
  return {
    ok: true,
    plan: { model: `${model} (${variant})`, baseUrl, files: hub.files(variant), card: { model, variant, source: baseUrl } },
  };
}
