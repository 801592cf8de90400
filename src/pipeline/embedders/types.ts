import type { Chunk } from '../types.js';

/** Identity of an embedding model: changing any of it means the stored vectors must be rebuilt. */
export interface EmbedderInfo {
  /** 'transformer' (a sentence-transformers ONNX model) or 'static' (the built-in word-vector graph). */
  kind: 'transformer' | 'static';
  /** Model name, e.g. 'all-MiniLM-L6-v2' or 'glove-sg-100d-sif'. */
  model: string;
  /** Vector dimension (384 for MiniLM, 100 for the built-in embedder). */
  dimension: number;
}

export interface Embedder {
  readonly info: EmbedderInfo;
  /** Splits a document into chunks sized for this model (title prepended where the model benefits). */
  chunk(text: string, title: string): Chunk[];
  /** Embeds document texts (chunks) in batches; every vector is L2-normalised, of length info.dimension. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Embeds a search query, as the model wants queries (bge: after its retrieval instruction). */
  embedQuery(text: string): Promise<Float32Array>;
  close(): Promise<void>;
}
