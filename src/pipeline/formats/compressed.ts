/**
 * Single-file compression (.gz, .bz2, .xz, .zst): recognised by its magic bytes, decompressed piece by piece and cut
 * at a byte budget, so a decompression bomb costs at most the budget in memory and time, never the whole output.
 * The parse stage then reads the content inside as the file the name names without the suffix (notes.txt.gz is
 * text, report.pdf.xz a PDF). Node's zlib does gzip; bzip2, xz and zstd come from small pure-JS/WebAssembly
 * decoders (seek-bzip, xz-decompress, fzstd): no native build, and each hands its output over as it goes (seek-bzip
 * byte by byte), which the budget needs.
 */
import { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Decompress as ZstdDecompress } from 'fzstd';
import Bunzip from 'seek-bzip';
import xzDecompress from 'xz-decompress';

export type Compression = 'gzip' | 'bzip2' | 'xz' | 'zstd';

/** The file-name suffixes of each compression (stripped to find the inner file's extension). */
const SUFFIXES: Record<Compression, readonly string[]> = {
  gzip: ['gz', 'gzip'],
  bzip2: ['bz2', 'bzip2'],
  xz: ['xz'],
  zstd: ['zst', 'zstd'],
};

/** The compression whose magic bytes open `head`, or null. */
export function compressionOf(head: Buffer): Compression | null {
  if (head.length >= 3 && head[0] === 0x1f && head[1] === 0x8b && head[2] === 0x08) return 'gzip';
  if (head.length >= 4 && head.subarray(0, 3).toString('latin1') === 'BZh' && head[3]! >= 0x31 && head[3]! <= 0x39) return 'bzip2';
  if (head.length >= 6 && head.subarray(0, 6).equals(Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]))) return 'xz';
  if (head.length >= 4 && head.readUInt32LE(0) === 0xfd2fb528) return 'zstd';
  return null;
}

/**
 * The extension of the file inside: 'txt' for notes.txt.gz, '' for notes.gz or a .tgz (the name says nothing,
 * the content decides). `filename` is the compressed file's name.
 */
export function innerExtension(filename: string, compression: Compression): string {
  const parts = filename.toLowerCase().split('.');
  if (parts.length < 3 || !SUFFIXES[compression].includes(parts.at(-1)!)) return '';
  return parts.at(-2)!;
}

export interface Decompressed {
  bytes: Buffer;
  /** The content went on past the budget: `bytes` is its opening. */
  cut: boolean;
}

/**
 * Input handed to the decoders at a time. The streams (zlib, xz) chunk their output themselves; fzstd decodes all
 * it is given in one call, and a zstd run-length block of 4 bytes can stand for 128 KB: its pieces are small so
 * one call yields at most ~16 MB.
 */
const INPUT_PIECE = 16 * 1024;
const ZSTD_INPUT_PIECE = 512;

/** The decompressed content as chunks, pulled one at a time (stopping early ends the decoder). bzip2 aside. */
function decode(compression: Exclude<Compression, 'bzip2'>, bytes: Buffer): AsyncIterable<Uint8Array> {
  const pieces = function* (size = INPUT_PIECE): Generator<Buffer> {
    for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
  };
  switch (compression) {
    case 'gzip':
      return Readable.from(pieces()).pipe(createGunzip());
    case 'xz':
      return new xzDecompress.XzReadableStream(pulled(pieces()));
    case 'zstd':
      return zstdChunks(pieces(ZSTD_INPUT_PIECE));
  }
}

/** A web stream handing over one piece per read, only when asked (nothing is pushed after a cancel). */
function pulled(pieces: Iterator<Buffer>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = pieces.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
}

/** fzstd pushes its output to a callback: one input piece at a time, handed on as they come. */
async function* zstdChunks(pieces: Iterable<Buffer>): AsyncGenerator<Uint8Array> {
  const out: Uint8Array[] = [];
  const decoder = new ZstdDecompress((chunk) => out.push(chunk));
  let previous: Buffer | null = null;
  for (const piece of pieces) {
    if (previous) decoder.push(previous);
    previous = piece;
    yield* out.splice(0);
  }
  decoder.push(previous ?? new Uint8Array(0), true);
  yield* out.splice(0);
}

/** Collects output up to a budget chosen from its opening (`budgetFor(head)` once `headBytes` are in). */
class Budgeted {
  readonly #chunks: Buffer[] = [];
  #total = 0;
  #budget = Infinity;

  constructor(
    private readonly headBytes: number,
    private readonly budgetFor: (head: Buffer) => number,
  ) {}

  /** Adds a chunk; true once the output has gone past the budget (stop decoding). */
  add(chunk: Uint8Array): boolean {
    this.#chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    this.#total += chunk.byteLength;
    if (this.#budget === Infinity && this.#total >= this.headBytes) this.#budget = this.budgetFor(this.#all().subarray(0, this.headBytes));
    return this.#total > this.#budget;
  }

  result(): Decompressed {
    const all = this.#all();
    if (this.#budget === Infinity) this.#budget = this.budgetFor(all);
    return all.length > this.#budget ? { bytes: all.subarray(0, this.#budget), cut: true } : { bytes: all, cut: false };
  }

  #all(): Buffer {
    if (this.#chunks.length > 1) this.#chunks.splice(0, this.#chunks.length, Buffer.concat(this.#chunks));
    return this.#chunks[0] ?? Buffer.alloc(0);
  }
}

/** seek-bzip writes byte by byte into what it is given: bytes gathered in 64 KB pieces, stopped by a throw. */
function bunzip(bytes: Buffer, out: Budgeted): void {
  const FULL = Symbol('full');
  let piece = Buffer.allocUnsafe(64 * 1024);
  let at = 0;
  const flush = (): void => {
    const full = out.add(piece.subarray(0, at));
    piece = Buffer.allocUnsafe(64 * 1024);
    at = 0;
    if (full) throw FULL;
  };
  try {
    Bunzip.decode(bytes, {
      writeByte(byte: number) {
        piece[at++] = byte;
        if (at === piece.length) flush();
      },
    }, true);
    if (at > 0) flush();
  } catch (err) {
    if (err !== FULL) throw err;
  }
}

/**
 * Decompresses up to a budget chosen from the content's opening: `budgetFor(head)` is asked once the first
 * `headBytes` are out (or the content ended before). Throws on damaged input (the caller names the format).
 */
export async function decompress(
  compression: Compression,
  bytes: Buffer,
  headBytes: number,
  budgetFor: (head: Buffer) => number,
): Promise<Decompressed> {
  const out = new Budgeted(headBytes, budgetFor);
  if (compression === 'bzip2') bunzip(bytes, out);
  else for await (const chunk of decode(compression, bytes)) if (out.add(chunk)) break;
  return out.result();
}
