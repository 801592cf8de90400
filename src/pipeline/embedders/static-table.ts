/**
 * The built-in embedder's arithmetic, hand-written: a text's vector is the sum of its words' int8 rows, each times
 * one float (the row's quantisation scale × its SIF weight), divided by its L2 norm. That is a loop over ~100 rows
 * of 100 bytes per chunk. It used to be an ONNX graph run by onnxruntime in every thread that embeds, and each
 * session copied the 34 MB table (onnxruntime gives no way for two sessions to share one: docs/benchmarks/memory.md),
 * loaded the 44 MB libonnxruntime.so, and cost each call BigInt64Array tensors and a native round trip.
 *
 * Here the table and the row weights live in SharedArrayBuffers: one thread reads them (scripts/build-static-
 * embedder.ts writes them as raw little-endian files) and any other uses them as they are (`shared()`, then `new
 * StaticTable(shared)` there): the pipeline pool reads them once on the main thread and sends them with its tasks,
 * a query lane with its thread's start (src/pipeline/embedders/builtin-memory.ts), one copy in the process.
 *
 * Numerics follow the graph's float32 arithmetic step by step, in the order onnxruntime 1.30 took on x86-64 (read
 * off its outputs, not its source): each product w × q rounded to float32, summed four words at a time from zero
 * (the last two and the last one as groups of their own), each group's sum added to the total; the norm a float32
 * sum of rounded squares in dimension order; each component divided by max(norm, 1e-12). So a text gets the very
 * vector the graph gave it alone (every chunk of the Debian documentation and SciFact; the old pipeline's padded
 * batches moved its own vectors by up to 9e-8: docs/benchmarks/memory.md), and indexes built with the graph need
 * no re-embedding. A float64 sum would differ by up to 1.5e-7, a plain float32 one by 2.7e-7: no worse for search,
 * but the order keeps the identity, and it costs nothing measurable.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import path from 'node:path';

/** A table's memory, as another thread receives it (typed arrays over SharedArrayBuffers: sent, never copied). */
export interface SharedStaticTable {
  /** Row r is vectors[r × dimension, (r + 1) × dimension): int8, row 0 (padding) all zero. */
  vectors: Int8Array;
  /** Row r's scale × SIF weight. */
  weights: Float32Array;
  dimension: number;
}

/** The two files of a build (meta.json's `table`). */
export interface StaticTableFiles {
  vectors: string;
  weights: string;
}

/** Below this norm a vector is taken as zero (the graph's Max(‖·‖₂, 1e-12)). */
const MIN_NORM = Math.fround(1e-12);

/** Reads a whole file into a new SharedArrayBuffer of exactly `bytes` bytes (no intermediate copy). */
function readShared(file: string, bytes: number): SharedArrayBuffer {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size !== bytes) throw new Error(`${file} has ${size} bytes, expected ${bytes}: rebuild it`);
    const buffer = new SharedArrayBuffer(bytes);
    const view = new Uint8Array(buffer);
    for (let at = 0; at < bytes; ) {
      const n = readSync(fd, view, at, bytes - at, at);
      if (n === 0) throw new Error(`${file} ended after ${at} of ${bytes} bytes`);
      at += n;
    }
    return buffer;
  } finally {
    closeSync(fd);
  }
}

export class StaticTable {
  readonly vectors: Int8Array;
  readonly weights: Float32Array;
  readonly dimension: number;
  /** Rows in the table (the vocabulary's lines, [PAD] included). */
  readonly rows: number;

  constructor(shared: SharedStaticTable) {
    const { vectors, weights, dimension } = shared;
    if (!Number.isInteger(dimension) || dimension < 1 || vectors.length !== weights.length * dimension) {
      throw new Error(`a static table of ${vectors.length} values cannot hold ${weights.length} rows of ${dimension}`);
    }
    this.vectors = vectors;
    this.weights = weights;
    this.dimension = dimension;
    this.rows = weights.length;
  }

  /** Reads a build's table (`rows` × `dimension` int8 values and `rows` float32 weights) into shared memory. */
  static read(dir: string, files: StaticTableFiles, rows: number, dimension: number): StaticTable {
    const vectors = new Int8Array(readShared(path.join(dir, files.vectors), rows * dimension));
    const buffer = readShared(path.join(dir, files.weights), rows * 4);
    const weights = new Float32Array(buffer);
    if (endianness() !== 'LE') {
      // The file is little-endian; a Float32Array reads in the machine's order.
      const le = new DataView(buffer.slice(0));
      for (let r = 0; r < rows; r++) weights[r] = le.getFloat32(r * 4, true);
    }
    return new StaticTable({ vectors, weights, dimension });
  }

  /** This table's memory, to send to another thread (shared, not copied). */
  shared(): SharedStaticTable {
    return { vectors: this.vectors, weights: this.weights, dimension: this.dimension };
  }

  /** Bytes of shared memory the table holds. */
  get bytes(): number {
    return this.vectors.byteLength + this.weights.byteLength;
  }

  /**
   * The unit vector of a text whose words are rows `ids` (a word counted as often as it occurs), written into `out`:
   * the zero vector when there is none. Ids must be rows of this table (the tokenizer's, from the same build).
   */
  embed(ids: readonly number[], out: Float32Array = new Float32Array(this.dimension)): Float32Array {
    const dim = this.dimension;
    const { vectors, weights } = this;
    const f = Math.fround;
    out.fill(0);
    const n = ids.length;
    let k = 0;
    // In onnxruntime's order (see the file comment): words four at a time, then two, then one; each group's rounded
    // products summed in float32 from zero, then added to the total (a Float32Array: rounded as it is stored).
    for (; k + 4 <= n; k += 4) {
      const w0 = weights[ids[k]!]!, r0 = ids[k]! * dim;
      const w1 = weights[ids[k + 1]!]!, r1 = ids[k + 1]! * dim;
      const w2 = weights[ids[k + 2]!]!, r2 = ids[k + 2]! * dim;
      const w3 = weights[ids[k + 3]!]!, r3 = ids[k + 3]! * dim;
      for (let d = 0; d < dim; d++) {
        out[d]! += f(f(f(f(w0 * vectors[r0 + d]!) + f(w1 * vectors[r1 + d]!)) + f(w2 * vectors[r2 + d]!)) + f(w3 * vectors[r3 + d]!));
      }
    }
    if (k + 2 <= n) {
      const w0 = weights[ids[k]!]!, r0 = ids[k]! * dim;
      const w1 = weights[ids[k + 1]!]!, r1 = ids[k + 1]! * dim;
      for (let d = 0; d < dim; d++) out[d]! += f(f(w0 * vectors[r0 + d]!) + f(w1 * vectors[r1 + d]!));
      k += 2;
    }
    if (k < n) {
      const w0 = weights[ids[k]!]!, r0 = ids[k]! * dim;
      for (let d = 0; d < dim; d++) out[d]! += f(w0 * vectors[r0 + d]!);
    }
    let squares = 0;
    for (let d = 0; d < dim; d++) squares = f(squares + f(out[d]! * out[d]!));
    const norm = Math.max(f(Math.sqrt(squares)), MIN_NORM);
    for (let d = 0; d < dim; d++) out[d]! /= norm;
    return out;
  }
}
