/**
 * Writes tar archives for tests and the torture bench with tar-stream's packer (the same library that reads them
 * in src/pipeline/formats/tar.ts), in memory or, for bombs, streamed through gzip into a file.
 */
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';

export interface TarEntrySpec {
  name: string;
  data: Buffer | string;
}

export async function writeTar(entries: readonly TarEntrySpec[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const collected = (async () => {
    for await (const chunk of pack) chunks.push(chunk);
  })();
  for (const entry of entries) {
    await new Promise<void>((resolve, reject) => pack.entry({ name: entry.name }, entry.data, (err) => (err ? reject(err) : resolve())));
  }
  pack.finalize();
  await collected;
  return Buffer.concat(chunks);
}

/**
 * A tar whose first entry is a directory header that gives a size, then `entries`: CPython's testtar.tar
 * ("ustar/dirtype-with-size"). No data follows it: readers (GNU tar, Python's tarfile, tar-stream) read none for a
 * directory. tar-stream writes no such header: it is made from the first entry's, renamed, typed '5' and re-summed.
 */
export async function writeTarWithSizedDirectory(directory: string, size: number, entries: readonly TarEntrySpec[]): Promise<Buffer> {
  const rest = await writeTar(entries);
  const header = Buffer.from(rest.subarray(0, 512));
  header.fill(0, 0, 100);
  header.write(directory, 0, 'latin1');
  header.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  header[156] = 0x35; // '5': a directory
  header.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return Buffer.concat([header, rest]);
}

/** A .tar.gz holding one member of `bytes` copies of `fill`, written as a stream (never whole in memory). */
export async function writeTarGzBomb(file: string, memberName: string, bytes: number, fill = 'a'): Promise<void> {
  const pack = tar.pack();
  const block = Buffer.alloc(1 << 20, fill);
  const writing = pipeline(pack, createGzip({ level: 1 }), createWriteStream(file));
  const entry = pack.entry({ name: memberName, size: bytes });
  for (let written = 0; written < bytes; written += block.length) {
    const piece = block.subarray(0, Math.min(block.length, bytes - written));
    if (!entry.write(piece)) await new Promise((resolve) => entry.once('drain', resolve));
  }
  entry.end();
  pack.finalize();
  await writing;
}
