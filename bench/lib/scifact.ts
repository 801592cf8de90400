/** SciFact (BEIR) loading and nDCG@10 for the benchmarks. Data: ../shared/datasets/scifact (never copied). */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sharedPath, sharedRoot } from '../../test/helpers/shared.js';

export interface SciFactDoc {
  id: string;
  /** First line of the file (the paper title). */
  title: string;
  /** The whole file: title, blank line, abstract. */
  text: string;
}

export interface SciFactQueries {
  queries: { id: string; text: string }[];
  /** query id → relevant doc ids */
  qrels: Map<string, Set<string>>;
}

const SCIFACT_PARTS = ['files', 'queries.jsonl', 'qrels.tsv', 'queries-train.jsonl', 'qrels-train.tsv'];

/**
 * Whether the SciFact data the search benchmarks read is in place: its files folder (indexed through the service)
 * and both splits. A value, so a benchmark can say what is missing and stop without a stack trace.
 */
export function checkSciFact(root = sharedRoot): { ok: true; files: string } | { ok: false; reason: string } {
  const dir = path.join(root, 'datasets', 'scifact');
  const missing = SCIFACT_PARTS.filter((p) => !existsSync(path.join(dir, p)));
  if (missing.length === 0) return { ok: true, files: path.join(dir, 'files') };
  return {
    ok: false,
    reason:
      `SciFact data missing: ${missing.map((p) => path.join(dir, p)).join(', ')}. The search benchmarks read the shared ` +
      `data folder beside the repository (../shared/datasets/scifact: files/<id>.txt, queries*.jsonl, qrels*.tsv; see its ` +
      `README.md), or the folder FILESIFT_SHARED_DIR names. It is never copied into the repository.`,
  };
}

export function loadDocs(): SciFactDoc[] {
  const dir = sharedPath('datasets', 'scifact', 'files');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((f) => {
      const text = readFileSync(path.join(dir, f), 'utf8');
      return { id: f.slice(0, -4), title: text.split('\n', 1)[0] ?? '', text };
    });
}

/** 'test' = BEIR test (300 queries, report these); 'train' = BEIR train (809, tune on these). */
export function loadQueries(split: 'test' | 'train'): SciFactQueries {
  const suffix = split === 'train' ? '-train' : '';
  const qrels = new Map<string, Set<string>>();
  const lines = readFileSync(sharedPath('datasets', 'scifact', `qrels${suffix}.tsv`), 'utf8').split('\n').slice(1);
  for (const line of lines) {
    const [q, d, score] = line.trim().split('\t');
    if (q === undefined || d === undefined || Number(score) <= 0) continue;
    (qrels.get(q) ?? qrels.set(q, new Set()).get(q))?.add(d);
  }
  const queries = readFileSync(sharedPath('datasets', 'scifact', `queries${suffix}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { _id: string; text: string })
    .filter((q) => qrels.has(q._id))
    .map((q) => ({ id: q._id, text: q.text }));
  return { queries, qrels };
}

/** nDCG@k with binary relevance (kept here for the benches that import it from this module). */
export { ndcgAt } from './metrics.js';

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i] as number) * (b[i] as number);
  return s;
}
