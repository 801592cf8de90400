/**
 * The semantic side for offline experiments: every document chunked and embedded as an indexing task does, and
 * each query scored against every chunk (exact brute force, best chunk per document), which is what the
 * service's HNSW search approximates.
 */
import type { Embedder } from '../../src/pipeline/embedders/types.js';

export interface SemanticCorpus {
  dimension: number;
  /** Owner document index of each chunk. */
  owners: Int32Array;
  /** Chunk vectors, flat (chunk i at i·dimension). */
  vectors: Float32Array;
  documents: number;
}

/** Chunks and embeds each document (text, title) one at a time, as the pipeline does. */
export async function embedCorpus(embedder: Embedder, docs: readonly { text: string; title: string }[]): Promise<SemanticCorpus> {
  const dimension = embedder.info.dimension;
  const owners: number[] = [];
  const parts: Float32Array[] = [];
  for (const [i, d] of docs.entries()) {
    const chunks = embedder.chunk(d.text, d.title).map((c) => c.text);
    if (chunks.length === 0) continue;
    for (const v of await embedder.embed(chunks)) {
      owners.push(i);
      parts.push(v);
    }
  }
  const vectors = new Float32Array(parts.length * dimension);
  parts.forEach((v, i) => vectors.set(v, i * dimension));
  return { dimension, owners: Int32Array.from(owners), vectors, documents: docs.length };
}

/** Top-k documents by best-chunk cosine (vectors are L2-normalised, so a dot product): [doc index, cosine]. */
export function semanticTopK(corpus: SemanticCorpus, query: Float32Array, k: number): [number, number][] {
  const best = new Float64Array(corpus.documents).fill(-Infinity);
  const dim = corpus.dimension;
  for (let c = 0; c < corpus.owners.length; c++) {
    let s = 0;
    const base = c * dim;
    for (let j = 0; j < dim; j++) s += corpus.vectors[base + j]! * query[j]!;
    const owner = corpus.owners[c]!;
    if (s > best[owner]!) best[owner] = s;
  }
  const idx: number[] = [];
  for (let i = 0; i < best.length; i++) if (best[i]! > -Infinity) idx.push(i);
  idx.sort((a, b) => best[b]! - best[a]! || a - b);
  return idx.slice(0, k).map((i) => [i, best[i]!]);
}
