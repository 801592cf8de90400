/**
 * Files with no text we can extract (images, audio, video, executables, unknown binaries): indexed by name,
 * path, size and dates only. file-type names the content from its magic bytes, so the record still says what
 * the file is (image/png, application/x-7z-compressed, ...). file-type loads with the first binary a thread meets.
 */
import type { ExtractResult } from './types.js';

/** Formats file-type reports that are archives (their names are worth saying so in the format). */
const ARCHIVES = new Set(['7z', 'rar', 'gz', 'bz2', 'xz', 'zst', 'tar', 'lz', 'lzh', 'cab', 'ar', 'rpm', 'deb', 'cpio', 'Z', 'lz4']);

/** PKCS#7 / CMS (S/MIME .p7m, .p7s): a BER/DER SEQUENCE whose first element is the OID 1.2.840.113549.1.7.x. */
const PKCS7_OID = Buffer.from([0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07]);

/**
 * Binary formats whose opening is plain ASCII (so it would pass for text), recognised by their signature.
 * file-type knows neither.
 */
export function knownBinary(head: Buffer): { format: string; mime: string } | null {
  if (head.subarray(0, 9).toString('latin1') === 'SIMPLE  =') return { format: 'image', mime: 'image/fits' };
  // ar: static libraries (.a, .lib) and Debian packages. Its symbol table's big-endian offsets can pass for UTF-16.
  if (head.subarray(0, 8).toString('latin1') === '!<arch>\n') {
    const deb = head.subarray(8, 24).toString('latin1').startsWith('debian-binary');
    return { format: 'archive', mime: deb ? 'application/vnd.debian.binary-package' : 'application/x-archive' };
  }
  if (head[0] === 0x30 && head.subarray(0, 24).includes(PKCS7_OID)) {
    return { format: 'binary', mime: 'application/pkcs7-mime' };
  }
  return null;
}

export async function describeBinary(bytes: Buffer): Promise<{ format: string; mime: string }> {
  const known = knownBinary(bytes);
  if (known) return known;
  const { fileTypeFromBuffer } = await import('file-type');
  let detected: { ext: string; mime: string } | undefined;
  try {
    detected = await fileTypeFromBuffer(bytes.subarray(0, 64 * 1024));
  } catch {
    detected = undefined; // file-type gave up on odd bytes: still just a binary file
  }
  if (!detected) return { format: 'binary', mime: 'application/octet-stream' };
  if (detected.mime.startsWith('image/')) return { format: 'image', mime: detected.mime };
  if (detected.mime.startsWith('audio/')) return { format: 'audio', mime: detected.mime };
  if (detected.mime.startsWith('video/')) return { format: 'video', mime: detected.mime };
  if (ARCHIVES.has(detected.ext)) return { format: 'archive', mime: detected.mime };
  return { format: 'binary', mime: detected.mime };
}

export async function extractBinary(bytes: Buffer): Promise<ExtractResult> {
  const { format, mime } = await describeBinary(bytes);
  // ZIP and tar members are read (archive.ts); 7z, RAR and the rest have no maintained in-memory reader here.
  const note = format === 'archive' ? `archive (${mime}): members not read, indexed by name only` : 'no extractable text';
  return { ok: true, format, mime, text: '', metadata: {}, note };
}
