/**
 * Reading tar archives from memory with tar-stream (ustar, pax and GNU long names): the members come out one
 * after another as the parser meets them, each read into memory at most to a limit and the rest skipped.
 * Nothing is ever written to disk (node-tar extracts to a directory, which we must never do), so a member
 * named ../../etc/passwd is only a name.
 */
import tar from 'tar-stream';
import type { ArchiveMember } from './types.js';

const BLOCK = 512;

/**
 * A tar header block: the checksum at 148 (octal) equals the sum of the block's bytes with that field read as
 * spaces. Holds for ustar, GNU and old v7 archives alike, which have no magic of their own.
 */
export function isTar(head: Uint8Array): boolean {
  if (head.length < BLOCK || head[0] === 0) return false;
  const field = Buffer.from(head.subarray(148, 156)).toString('latin1').replace(/[\0 ]+$/, '').trim();
  if (!/^[0-7]{1,8}$/.test(field)) return false;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : head[i]!;
  return sum === parseInt(field, 8);
}

/**
 * The members of a tar held in `bytes`, in order. Each member's content is gathered (up to `maxMemberBytes`, the
 * rest drained) before it is handed over, so `read` answers from memory. A tar that ends early (cut by a byte
 * budget, or damaged) ends the iteration with an error after the members before the break.
 */
export async function* tarMembers(bytes: Buffer, maxMemberBytes: number): AsyncGenerator<ArchiveMember> {
  const extract = tar.extract({ allowUnknownFormat: true });
  extract.end(bytes);
  try {
    for await (const entry of extract) {
      const { name, size = 0, type } = entry.header;
      const regular = type === 'file' || type === 'contiguous-file';
      if (!regular) {
        // A directory, link, device or fifo: no content of its own. Drained, never awaited: tar-stream reads no data
        // for a directory, so one whose header still gives a size (CPython's testtar.tar) never ends its stream,
        // and waiting for that end held a pipeline thread until the file's timeout.
        entry.resume();
        continue;
      }
      const { content, error } = await gather(entry, maxMemberBytes);
      yield { name, size, directory: false, encrypted: false, read: (maxBytes) => Promise.resolve(content.subarray(0, maxBytes)) };
      if (error) throw error; // the archive broke off inside this member: what came before it is kept
    }
  } finally {
    extract.destroy();
  }
}

/**
 * The first `max` bytes of an entry; the rest is read past (it is already in memory: nothing is inflated). An
 * archive that breaks off inside the entry gives what came, with the error.
 */
function gather(entry: NodeJS.ReadableStream, max: number): Promise<{ content: Buffer; error?: Error }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const done = (error?: Error) => resolve({ content: Buffer.concat(chunks, total), ...(error ? { error } : {}) });
    entry.on('data', (chunk: Buffer) => {
      if (total >= max) return;
      const piece = chunk.length > max - total ? chunk.subarray(0, max - total) : chunk;
      chunks.push(piece);
      total += piece.length;
    });
    entry.once('end', () => done());
    entry.once('error', (err: Error) => done(err));
    entry.once('close', () => done(new Error('Unexpected end of data')));
  });
}
