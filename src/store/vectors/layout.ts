/**
 * The packed form of a vector list's block (issue 17's inverted-file index): each vector as one float32 scale and
 * `dim` signed bytes, its components over the largest one's 127th. A quarter of float32's bytes to read out of the
 * database a search, and the dot product with a query is the bytes' sum scaled once. Hand-written because it is
 * the inner loop of a vector search (a few nanoseconds a component) and no library reads our rows.
 *
 * Precision: a component is off by at most half a step (scale / 2), so a unit vector's dot product with a unit
 * query is off by at most ~sqrt(dim) · scale / 2 (0.004 at 100 dimensions). The lists only choose candidates;
 * their scores are computed again from the stored float vectors before anything is ranked.
 *
 * The store's vector lists write their blocks so (vector-lists.ts); bench:vector-lists measures it.
 */

/** Bytes of one packed vector of `dim` components: its scale, then a byte a component. */
export const packedStride = (dim: number): number => 4 + dim;

/** Packs `vectors` (`n` × `dim` floats, row after row) into n × packedStride(dim) bytes. */
export function packVectors(vectors: Float32Array, dim: number): Uint8Array {
  if (!Number.isInteger(dim) || dim < 1 || vectors.length % dim !== 0) throw new RangeError(`packVectors: ${vectors.length} floats are not rows of ${dim}`);
  const n = vectors.length / dim;
  const stride = packedStride(dim);
  const out = new Uint8Array(n * stride);
  const view = new DataView(out.buffer);
  const bytes = new Int8Array(out.buffer);
  for (let r = 0; r < n; r++) {
    const at = r * dim;
    let max = 0;
    for (let d = 0; d < dim; d++) max = Math.max(max, Math.abs(vectors[at + d]!));
    // A zero vector keeps scale 0: every score with it is 0, as its float dot product is.
    const scale = max / 127;
    view.setFloat32(r * stride, scale, true);
    if (scale === 0) continue;
    for (let d = 0; d < dim; d++) bytes[r * stride + 4 + d] = Math.round(vectors[at + d]! / scale);
  }
  return out;
}

/**
 * Dot products of `query` with every vector packed in `bytes` (as packVectors wrote them), into `out` from `at`.
 * `bytes` may be a view at any offset (a database reply's buffer): it is read through a DataView and an Int8Array
 * over the same range.
 */
export function scorePacked(bytes: Uint8Array, dim: number, query: Float32Array, out: Float32Array, at = 0): number {
  const stride = packedStride(dim);
  if (bytes.length % stride !== 0) throw new RangeError(`scorePacked: ${bytes.length} bytes are not vectors of ${dim}`);
  if (query.length !== dim) throw new RangeError(`scorePacked: a query of ${query.length} for vectors of ${dim}`);
  const n = bytes.length / stride;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ints = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let r = 0; r < n; r++) {
    const base = r * stride + 4;
    // Four sums: independent additions the JIT can overlap (~1.5× a single running sum at 100 dimensions).
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    let d = 0;
    for (; d + 4 <= dim; d += 4) {
      s0 += ints[base + d]! * query[d]!;
      s1 += ints[base + d + 1]! * query[d + 1]!;
      s2 += ints[base + d + 2]! * query[d + 2]!;
      s3 += ints[base + d + 3]! * query[d + 3]!;
    }
    for (; d < dim; d++) s0 += ints[base + d]! * query[d]!;
    out[at + r] = (s0 + s1 + s2 + s3) * view.getFloat32(r * stride, true);
  }
  return n;
}
