/**
 * A file's facts from one lstat, without reading it: what the scan and the indexer compare (size, mtime) and what
 * the parse stage starts from. Apart from parse.ts so the main thread (the indexer) stats a file without
 * loading every format's extractor: those belong in the pipeline threads.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { linkRefusal } from '../../lib/no-follow.js';
import type { FileFacts, ParseFailureCode } from '../types.js';

export type StatOutcome = { ok: true; facts: FileFacts } | { ok: false; code: ParseFailureCode; reason: string };

export type Failure = { ok: false; code: ParseFailureCode; reason: string };

/** File system facts without reading the file (what the scanner compares: size and mtime). */
export async function statFile(filePath: string): Promise<StatOutcome> {
  const absolute = path.resolve(filePath);
  try {
    // lstat: a link is not followed (lib/no-follow.ts), so it is "not a file" here, as the parse stage finds.
    const stats = await fs.lstat(absolute);
    if (stats.isSymbolicLink()) return { ok: false, code: 'not_a_file', reason: linkRefusal(absolute) };
    if (!stats.isFile()) return notAFile(absolute, stats);
    return { ok: true, facts: factsOf(absolute, stats) };
  } catch (err) {
    return fileSystemFailure(absolute, err);
  }
}

export function factsOf(absolute: string, stats: { size: number; birthtimeMs: number; birthtime: Date; ctime: Date; mtime: Date; atime: Date }): FileFacts {
  const filename = path.basename(absolute);
  const ext = path.extname(filename);
  return {
    path: absolute,
    filename,
    extension: ext.length > 1 ? ext.slice(1).toLowerCase() : '',
    size: stats.size,
    // Some file systems do not record a birth time (0): the inode change time is the closest we have.
    created: (stats.birthtimeMs > 0 ? stats.birthtime : stats.ctime).toISOString(),
    modified: stats.mtime.toISOString(),
    accessed: stats.atime.toISOString(),
  };
}

export function notAFile(absolute: string, stats: { isDirectory(): boolean; isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean }): Failure {
  const kind = stats.isDirectory()
    ? 'a directory'
    : stats.isFIFO()
      ? 'a named pipe'
      : stats.isSocket()
        ? 'a socket'
        : stats.isCharacterDevice() || stats.isBlockDevice()
          ? 'a device'
          : 'not a regular file';
  return { ok: false, code: 'not_a_file', reason: `${absolute} is ${kind}, not a regular file` };
}

export async function fileSystemFailure(absolute: string, err: unknown): Promise<Failure> {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT': {
      // A dangling symlink exists as a directory entry, but its content cannot be read.
      const link = await fs.readlink(absolute).catch(() => undefined);
      if (link !== undefined) return { ok: false, code: 'unreadable', reason: `${absolute} is a broken symbolic link (target ${link} does not exist)` };
      return { ok: false, code: 'not_found', reason: `${absolute} does not exist` };
    }
    case 'ENOTDIR':
      return { ok: false, code: 'not_found', reason: `${absolute} does not exist (a parent is not a directory)` };
    case 'EACCES':
    case 'EPERM':
      return { ok: false, code: 'unreadable', reason: `permission denied reading ${absolute}` };
    case 'ELOOP':
      return { ok: false, code: 'unreadable', reason: `${absolute} is a symbolic link loop` };
    case 'EISDIR':
      return { ok: false, code: 'not_a_file', reason: `${absolute} is a directory, not a regular file` };
    default:
      return { ok: false, code: 'unreadable', reason: `${absolute} could not be read: ${(err as Error | undefined)?.message ?? String(err)}` };
  }
}
