/**
 * The byte layouts of the keyword index as they leave the database (sql/0007_keyword_blocks.sql writes them with
 * int4send/int2send: big-endian), and their decoding. Fixed-size records: a block of 128 postings is 2,816 bytes,
 * read with a DataView, no parsing.
 */
import { view } from '../binary.js';

/** doc int4 | tf_a tf_b tf_c tf_d int2 | len_a len_b len_c int2 | len_d int4 */
export const POSTING_BYTES = 22;

/** first_doc int4 | last_doc int4 | n int2 | max_tf_a..d int2 | min_len_a..c int2 | min_len_d int4 */
export const BLOCK_BOUND_BYTES = 28;

/** Postings per block at most (the seal function's constant). */
export const BLOCK_SIZE = 128;

/** A field quartet in the index's order: name and title (A), keywords (B), summary (C), content (D). */
export type Fields = [a: number, b: number, c: number, d: number];

/** What a block's bound needs: its doc range and the extremes of its postings' field values. */
export interface BlockBound {
  /** The block's first document, which names it. */
  first: number;
  last: number;
  n: number;
  maxTf: Fields;
  minLen: Fields;
}


function wholeRecords(bytes: Uint8Array, size: number, what: string): number {
  if (bytes.byteLength % size !== 0) throw new Error(`${what}: ${bytes.byteLength} bytes is not a whole number of ${size}-byte records`);
  return bytes.byteLength / size;
}

export function decodeBlockBounds(bytes: Uint8Array | null): BlockBound[] {
  if (!bytes) return [];
  const v = view(bytes);
  const out: BlockBound[] = [];
  const count = wholeRecords(bytes, BLOCK_BOUND_BYTES, 'block bounds');
  for (let i = 0, at = 0; i < count; i++, at += BLOCK_BOUND_BYTES) {
    out.push({
      first: v.getInt32(at),
      last: v.getInt32(at + 4),
      n: v.getInt16(at + 8),
      maxTf: [v.getInt16(at + 10), v.getInt16(at + 12), v.getInt16(at + 14), v.getInt16(at + 16)],
      minLen: [v.getInt16(at + 18), v.getInt16(at + 20), v.getInt16(at + 22), v.getInt32(at + 24)],
    });
  }
  return out;
}

/** A list of int4 document ordinals. */
export function decodeDocs(bytes: Uint8Array | null): Int32Array {
  if (!bytes) return new Int32Array(0);
  const v = view(bytes);
  const out = new Int32Array(wholeRecords(bytes, 4, 'doc list'));
  for (let i = 0; i < out.length; i++) out[i] = v.getInt32(i * 4);
  return out;
}

/**
 * Postings as parallel arrays: doc ordinals (ascending, as stored) and each posting's BM25F contribution, scored by
 * `score(tf, dl)` with tf and dl already weighted by the caller's field weights.
 */
export interface ScoredPostings {
  docs: Int32Array;
  scores: Float64Array;
}

export const NO_POSTINGS: ScoredPostings = { docs: new Int32Array(0), scores: new Float64Array(0) };

/**
 * The weighted tf of the posting record at `at`, in one fixed order of operations (((wa·tf_a + wb·tf_b) + wc·tf_c)
 * + wd·tf_d): every reader of records sums them so, and a posting's score is always the same double. 0: its only
 * matches are in fields weighted 0, so it is no match at all.
 */
export function recordTf(v: DataView, at: number, w: Fields): number {
  return w[0] * v.getInt16(at + 4) + w[1] * v.getInt16(at + 6) + w[2] * v.getInt16(at + 8) + w[3] * v.getInt16(at + 10);
}

/** The weighted length of the posting record at `at`'s document, in the same order of operations as recordTf. */
export function recordLength(v: DataView, at: number, w: Fields): number {
  return w[0] * v.getInt16(at + 12) + w[1] * v.getInt16(at + 14) + w[2] * v.getInt16(at + 16) + w[3] * v.getInt32(at + 18);
}

/** A posting's contribution: weight · tf / (tf + c1 + c2 · dl), in the order of operations of query.ts's formula. */
export function contribution(weight: number, c1: number, c2: number, tf: number, dl: number): number {
  return (weight * tf) / (tf + c1 + c2 * dl);
}

/** Which documents hold a lexeme, and in which fields: bit i of `fields` is set where the posting's tf_i > 0 (a, b, c, d). */
export interface FieldPostings {
  docs: Int32Array;
  fields: Uint8Array;
}

/** Postings records' document ordinals and field bits (FieldPostings), in stored order. */
export function fieldPostings(bytes: Uint8Array | null): FieldPostings {
  if (!bytes) return { docs: new Int32Array(0), fields: new Uint8Array(0) };
  const v = view(bytes);
  const count = wholeRecords(bytes, POSTING_BYTES, 'postings');
  const docs = new Int32Array(count);
  const fields = new Uint8Array(count);
  for (let i = 0, at = 0; i < count; i++, at += POSTING_BYTES) {
    docs[i] = v.getInt32(at);
    fields[i] = (v.getInt16(at + 4) > 0 ? 1 : 0) | (v.getInt16(at + 6) > 0 ? 2 : 0) | (v.getInt16(at + 8) > 0 ? 4 : 0) | (v.getInt16(at + 10) > 0 ? 8 : 0);
  }
  return { docs, fields };
}

/**
 * Decodes and scores postings records (recordTf, recordLength). A posting whose weighted tf is 0 is left out.
 */
export function scorePostings(
  bytes: Uint8Array | null,
  weights: Fields,
  score: (tf: number, dl: number) => number,
): ScoredPostings {
  if (!bytes || bytes.byteLength === 0) return NO_POSTINGS;
  const v = view(bytes);
  const count = wholeRecords(bytes, POSTING_BYTES, 'postings');
  const docs = new Int32Array(count);
  const scores = new Float64Array(count);
  let kept = 0;
  for (let i = 0, at = 0; i < count; i++, at += POSTING_BYTES) {
    const tf = recordTf(v, at, weights);
    if (tf === 0) continue;
    docs[kept] = v.getInt32(at);
    scores[kept++] = score(tf, recordLength(v, at, weights));
  }
  return kept === count ? { docs, scores } : { docs: docs.subarray(0, kept), scores: scores.subarray(0, kept) };
}
