/**
 * A query's dot products with packed vectors (layout.ts), in WebAssembly with SIMD (packed-dot.wat): the inner loop
 * of a vector search, which scores every entry of the probed lists (~15,000 vectors of 100 components a hybrid
 * search at 5,000 files). Eight components an instruction, in integers: 0.2 ns a component against 1.4 for
 * layout.ts's scorePacked in JavaScript (`npm run bench:packed-dot`: 0.29 against 2.13 ms a search's lists).
 * Hand-written for the reason layout.ts gives: no library reads our rows.
 *
 * The query is quantized to 16-bit integers (its components over its largest one's Q-th, Q ≤ 32,767 and small
 * enough that no sum of `dim` products with bytes can overflow 32 bits), which moves a score by a few 1e-5 of its
 * size, far below the vectors' own rounding to a byte; the lists only choose candidates, whose scores are computed
 * again from the stored float vectors. Past MAX_DIM components Q would get coarse: scorePacked serves them.
 */
import { packedStride, scorePacked } from './layout.js';
import { PACKED_DOT_WASM } from './packed-dot.wasm.js';

/** Components beyond which the query's integers would get coarse (Q < 1,024): JavaScript's scorePacked instead. */
export const MAX_DIM = 16_384;
const PAGE = 65_536;

// The project's lib (ES2023, no DOM) declares no WebAssembly: the little used here.
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: object };
};

interface Kernel {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  score(vecs: number, n: number, dim: number, query: number, qscale: number, out: number): void;
}

/** The thread's instance, made at the first search (one per thread: its memory is scratch space for a call). */
let kernel: Kernel | undefined;

function getKernel(): Kernel {
  if (!kernel) {
    const module = new WebAssembly.Module(Buffer.from(PACKED_DOT_WASM, 'base64'));
    kernel = new WebAssembly.Instance(module).exports as unknown as Kernel;
  }
  return kernel;
}

const align16 = (n: number): number => (n + 15) & ~15;

/** Scores packed vectors of `dim` components against one query. */
export class PackedScorer {
  readonly dim: number;
  readonly #query: Float32Array;
  /** The query's integers, zero-padded to a multiple of 8, and their scale; null: scorePacked serves this query. */
  readonly #ints: Int16Array | null;
  readonly #scale: number;

  constructor(query: Float32Array, dim: number) {
    if (query.length !== dim) throw new RangeError(`PackedScorer: a query of ${query.length} for vectors of ${dim}`);
    this.dim = dim;
    this.#query = query;
    if (dim > MAX_DIM) {
      this.#ints = null;
      this.#scale = 0;
      return;
    }
    const q = Math.min(32_767, Math.floor(2 ** 31 / (128 * dim)) - 1);
    let max = 0;
    for (let d = 0; d < dim; d++) max = Math.max(max, Math.abs(query[d]!));
    this.#scale = max / q;
    this.#ints = new Int16Array(align16(dim * 2) / 2);
    if (max > 0) for (let d = 0; d < dim; d++) this.#ints[d] = Math.round(query[d]! / this.#scale);
  }

  /** Dot products with every vector packed in `bytes` (any offset), into `out` from `at`; answers how many. */
  score(bytes: Uint8Array, out: Float32Array, at = 0): number {
    if (this.#ints === null) return scorePacked(bytes, this.dim, this.#query, out, at);
    const stride = packedStride(this.dim);
    if (bytes.length % stride !== 0) throw new RangeError(`PackedScorer: ${bytes.length} bytes are not vectors of ${this.dim}`);
    const n = bytes.length / stride;
    if (n === 0) return 0;
    // Scratch layout: the query's integers, the scores, the vectors; written again every call (cheap), so calls of
    // several scorers may interleave.
    const k = getKernel();
    const scores = this.#ints.byteLength;
    const vecs = scores + align16(n * 4);
    const needed = vecs + bytes.length;
    if (k.memory.buffer.byteLength < needed) k.memory.grow(Math.ceil((needed - k.memory.buffer.byteLength) / PAGE));
    const buffer = k.memory.buffer;
    new Int16Array(buffer, 0, this.#ints.length).set(this.#ints);
    new Uint8Array(buffer, vecs, bytes.length).set(bytes);
    k.score(vecs, n, this.dim, 0, this.#scale, scores);
    out.set(new Float32Array(buffer, scores, n), at);
    return n;
  }
}
