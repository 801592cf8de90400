/**
 * What one pipeline worker does for one file. A file is processed in two tasks so the main thread can decide
 * in between, from the content hash, whether the expensive part is needed at all:
 *   prepare: parse (detect type, extract text and metadata, hash the bytes)
 *   enrich:  analyze (title, summary, keywords) and embed (chunk embeddings)
 * Two more serve a model change: `embed` re-embeds text already stored (no parsing, no analysis), and `probe`
 * loads the embedder and answers what it is (the real dimension, or why it cannot load). Tasks that embed carry
 * where the embedder comes from, so a model change is the next task's business, not a restart of the threads.
 * The store stage runs on the main side (the store actor writes; workers never touch the database).
 */
import type { SharedWords } from './embedders/builtin-memory.js';
import type { SharedStaticTable } from './embedders/static-table.js';
import type { Embedder, EmbedderInfo } from './embedders/types.js';
import { analyze, type AnalyzeOptions } from './stages/analyze.js';
import { parseFile, type ParseOptions } from './stages/parse.js';
import type { Analysis, EmbeddedChunk, ParsedDocument, ParseOutcome } from './types.js';

export interface PrepareTask {
  kind: 'prepare';
  path: string;
  parse: ParseOptions;
}

/** Where a thread loads its embedder from (the pool stamps it on each task: a model change needs no new threads). */
export interface EmbedderSource {
  /** A transformer model folder; null: the built-in embedder only. */
  modelDir: string | null;
  builtinDir: string;
  /** Changes on every switch of the embedder: a thread whose loaded embedder has another generation reloads. */
  generation: number;
}

export type { SharedWords } from './embedders/builtin-memory.js';

export interface EnrichTask {
  kind: 'enrich';
  doc: ParsedDocument;
  /** Set by the pool. */
  embedder: EmbedderSource;
  /** Set by the pool; null when it could not build it (the thread then reads the file itself). */
  words: SharedWords | null;
  /** Set by the pool: the built-in embedder's table when that is the embedder; else null (read by the thread if needed). */
  table: SharedStaticTable | null;
  analyze: Omit<AnalyzeOptions, 'signal'>;
  /** False when no embedder is available: the file is indexed for keyword search only. */
  embed: boolean;
}

/** Re-embedding stored text with the thread's embedder (a model change): chunk + embed only. */
export interface EmbedTask {
  kind: 'embed';
  /** The file the text belongs to (diagnostics). */
  path: string;
  text: string;
  /** The stored title, prepended to chunks as enrich does. */
  title: string;
  /** Set by the pool. */
  embedder: EmbedderSource;
  /** Set by the pool. */
  words: SharedWords | null;
  /** Set by the pool. */
  table: SharedStaticTable | null;
}

export interface ProbeTask {
  kind: 'probe';
  /** Set by the pool. */
  embedder: EmbedderSource;
  /** Set by the pool. */
  table: SharedStaticTable | null;
}

export type PipelineTask = PrepareTask | EnrichTask | EmbedTask | ProbeTask;

export interface EnrichResult {
  analysis: Analysis;
  chunks: EmbeddedChunk[];
  /** The model that made the chunks; null when the task did not embed. */
  embedder: EmbedderInfo | null;
  /** Chunks dropped because the model found nothing to embed in them (e.g. no known word). */
  emptyChunks: number;
  timings: { analyzeMs: number; embedMs: number };
}

export interface EmbedResult {
  chunks: EmbeddedChunk[];
  embedder: EmbedderInfo;
  emptyChunks: number;
  embedMs: number;
}

export type TaskResult<T extends PipelineTask> = T extends PrepareTask
  ? ParseOutcome
  : T extends EnrichTask
    ? EnrichResult
    : T extends EmbedTask
      ? EmbedResult
      : EmbedderInfo;

function isZero(vector: Float32Array): boolean {
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) return false;
  return true;
}

export async function prepare(task: PrepareTask): Promise<ParseOutcome> {
  return parseFile(task.path, task.parse);
}

/** Chunks a text (its title prepended, as the model wants) and embeds the chunks that have a direction. */
export async function embedText(text: string, title: string, embedder: Embedder): Promise<EmbedResult> {
  const t0 = performance.now();
  const pieces = embedder.chunk(text, title);
  const vectors = pieces.length > 0 ? await embedder.embed(pieces.map((p) => p.text)) : [];
  const chunks: EmbeddedChunk[] = [];
  pieces.forEach((piece, i) => {
    const embedding = vectors[i]!;
    // A zero vector has no direction: cosine with it is undefined, so such a chunk cannot be searched.
    if (!isZero(embedding)) chunks.push({ ...piece, index: chunks.length, embedding });
  });
  return { chunks, embedder: embedder.info, emptyChunks: pieces.length - chunks.length, embedMs: performance.now() - t0 };
}

export async function enrich(task: EnrichTask, embedder: Embedder | null): Promise<EnrichResult> {
  const t0 = performance.now();
  const analysis = await analyze(task.doc, task.analyze);
  const t1 = performance.now();
  if (!embedder) return { analysis, chunks: [], embedder: null, emptyChunks: 0, timings: { analyzeMs: t1 - t0, embedMs: 0 } };
  const embedded = await embedText(task.doc.text, analysis.title, embedder);
  return {
    analysis,
    chunks: embedded.chunks,
    embedder: embedded.embedder,
    emptyChunks: embedded.emptyChunks,
    timings: { analyzeMs: t1 - t0, embedMs: embedded.embedMs },
  };
}

/** What every pipeline thread is started with (the pool's piscina workerData). */
export interface PipelineWorkerData {
  /** How long a thread idles before it collects its garbage; undefined: the worker's default. */
  idleCollectMs?: number;
}
