/**
 * Where a file's CPU time goes, stage by stage, measured one stage at a time on one thread (bench/index-pipeline):
 * parse, analyze, chunk + tokenise, and the store's write (into a scratch PGlite on disk, in-process, with
 * vectors of the model's dimension). The model's own share comes from the bare run. Whatever the pipeline spends
 * beyond the sum is orchestration: threads handing work over, messages, garbage collection, progress events.
 */
import { ANALYZE_MAX_INPUT_CHARS, parseLimits } from '../../src/indexing/indexer.js';
import { indexedFileWrite } from '../../src/indexing/indexed-write.js';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Embedder } from '../../src/pipeline/embedders/types.js';
import { analyze } from '../../src/pipeline/stages/analyze.js';
import { parseFile } from '../../src/pipeline/stages/parse.js';
import type { Analysis, ParsedDocument } from '../../src/pipeline/types.js';
import { openPglite } from '../../src/store/engines/pglite.js';
import { openStore } from '../../src/store/store.js';
import { defaultSettings } from '../../src/settings/schema.js';

export interface Breakdown {
  files: number;
  /** CPU milliseconds per file. */
  parseMs: number;
  analyzeMs: number;
  chunkMs: number;
  storeMs: number;
}

/** Items run before timing: enough for V8 to have optimised each stage's code (20 left analyze half cold). */
const WARMUP = 100;
/** The default settings' parse limits, as the indexer derives them. */
const PARSE_LIMITS = parseLimits(defaultSettings().indexing);

/** Up to n items spread evenly over the list (a heterogeneous corpus is not sorted by kind). */
export function spread<T>(items: T[], n: number): T[] {
  if (items.length <= n) return items;
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)] as T);
}

const cpuMs = (): number => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/** Runs fn over the first items to warm the JIT and caches up, then over all of them: CPU ms per item. */
async function perItem<T, R>(items: T[], fn: (item: T, i: number) => Promise<R> | R): Promise<{ ms: number; results: R[] }> {
  for (const [i, item] of items.slice(0, WARMUP).entries()) await fn(item, i);
  const results: R[] = [];
  const c0 = cpuMs();
  for (const [i, item] of items.entries()) results.push(await fn(item, i));
  return { ms: (cpuMs() - c0) / Math.max(1, items.length), results };
}

export async function stageBreakdown(files: string[], embedder: Embedder): Promise<Breakdown> {
  const parse = await perItem(files, async (f) => {
    const outcome = await parseFile(f, PARSE_LIMITS);
    return outcome.ok ? outcome.doc : null;
  });
  const docs = parse.results.filter((d): d is ParsedDocument => d !== null);
  const analyzeOptions = { provider: 'local' as const, model: 'extractive', timeoutMs: 30_000, maxInputChars: ANALYZE_MAX_INPUT_CHARS };
  const analysis = await perItem(docs, (d) => analyze(d, analyzeOptions));
  const chunk = await perItem(docs, (d, i) => embedder.chunk(d.text, (analysis.results[i] as Analysis).title));

  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'filesift-bench-store-'));
  const db = await openPglite(dataDir);
  try {
    const store = await openStore(db);
    const dimension = embedder.info.dimension;
    const model = `${embedder.info.kind}:${embedder.info.model}`;
    let writes = 0;
    const write = async (d: ParsedDocument, i: number): Promise<void> => {
      const pieces = chunk.results[i] ?? [];
      // Every write is a new path and hash: inserts, as a first indexing does.
      const n = writes++;
      const facts = { ...d, path: `${d.path}#${n}` };
      await store.files.findByHash(`${d.contentHash}${n}`, model, facts.path);
      await store.files.saveIndexed(
        indexedFileWrite(
          { ...facts, contentHash: `${d.contentHash}${n}` },
          {
            mtimeMs: Date.parse(d.modified),
            jobId: null,
            analysis: analysis.results[i] as Analysis,
            embeddingModel: model,
            chunks: pieces.map((p) => ({ ...p, embedding: Float32Array.from({ length: dimension }, (_, k) => Math.sin(k + i)) })),
          },
        ),
      );
    };
    const store_ = await perItem(docs, write);
    return { files: docs.length, parseMs: parse.ms, analyzeMs: analysis.ms, chunkMs: chunk.ms, storeMs: store_.ms };
  } finally {
    await db.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export interface FormatCost {
  format: string;
  files: number;
  /** CPU milliseconds per file of this format, one thread. */
  parseMs: number;
  analyzeMs: number;
  /** Files whose parse failed (counted under the format their extension names). */
  failed: number;
}

/**
 * Parse and analyze CPU time per format, one file at a time on this thread (after a warm-up over the first files):
 * where a heterogeneous corpus spends its pipeline time. Rows by total cost, largest first.
 */
export async function formatBreakdown(files: string[]): Promise<FormatCost[]> {
  const analyzeOptions = { provider: 'local' as const, model: 'extractive', timeoutMs: 30_000, maxInputChars: ANALYZE_MAX_INPUT_CHARS };
  for (const f of files.slice(0, WARMUP)) {
    const outcome = await parseFile(f, PARSE_LIMITS);
    if (outcome.ok) await analyze(outcome.doc, analyzeOptions);
  }
  const rows = new Map<string, FormatCost>();
  for (const f of files) {
    const c0 = cpuMs();
    const outcome = await parseFile(f, PARSE_LIMITS);
    const c1 = cpuMs();
    if (outcome.ok) await analyze(outcome.doc, analyzeOptions);
    const c2 = cpuMs();
    const format = outcome.ok ? outcome.doc.format : `${path.extname(f).toLowerCase() || '(none)'} (failed)`;
    const row = rows.get(format) ?? { format, files: 0, parseMs: 0, analyzeMs: 0, failed: 0 };
    row.files++;
    row.parseMs += c1 - c0;
    row.analyzeMs += c2 - c1;
    if (!outcome.ok) row.failed++;
    rows.set(format, row);
  }
  return [...rows.values()]
    .sort((a, b) => b.parseMs + b.analyzeMs - (a.parseMs + a.analyzeMs))
    .map((r) => ({ ...r, parseMs: r.parseMs / r.files, analyzeMs: r.analyzeMs / r.files }));
}
