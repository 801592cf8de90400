import { constants } from 'node:fs';
import { access, lstat, realpath, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import { linkRefusal } from '../lib/no-follow.js';
import { systemRefusal, type OwnDataDir } from '../lib/paths.js';
import { createErrorWith, type ErrorFields } from './errors.js';

/** statfs types of kernel pseudo-filesystems (linux/magic.h): their "files" are live state, never documents. */
const PSEUDO_FILESYSTEMS = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x1cd1, 'devpts'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0xcafe4a11, 'bpf'],
  [0x62656570, 'configfs'],
  [0x6165676c, 'pstore'],
  [0x65735543, 'fusectl'],
  [0x19800202, 'mqueue'],
  [0xde5e81e4, 'efivarfs'],
]);

async function pseudoFilesystem(dir: string): Promise<string | null> {
  if (process.platform !== 'linux') return null;
  try {
    return PSEUDO_FILESYSTEMS.get(Number((await statfs(dir)).type)) ?? null;
  } catch {
    return null;
  }
}

/**
 * Checks a client-supplied path and answers its real path: absolute, existing, of the expected kind, readable,
 * not filesift's own data directory, not a system pseudo-filesystem. A folder may be named through links (it is
 * resolved once, here); a file may not itself be a link (links are never followed, lib/no-follow.ts), though
 * the folder holding it is resolved like any named folder. Every failure is a 400 whose body keeps the
 * endpoint's own fields (`fields`, e.g. files_indexed).
 */
export async function checkPath(raw: string, kind: 'file' | 'directory', field: string, ownData: OwnDataDir, fields: ErrorFields): Promise<string> {
  const fail = (message: string) => createErrorWith('invalid_path', { success: false, ...fields }, message);
  if (!path.isAbsolute(raw)) throw fail(`${field} must be an absolute path, got '${raw}'`);
  if (raw.includes('\0')) throw fail(`${field} must not contain a NUL character`);
  const resolved = path.resolve(raw);
  let real: string;
  let info;
  const unreadable = (err: unknown) => {
    const code = (err as NodeJS.ErrnoException).code;
    return fail(code === 'ENOENT' ? `${field} '${resolved}' does not exist` : `${field} '${resolved}' cannot be read (${code})`);
  };
  if (kind === 'file') {
    const link = await lstat(resolved).then((s) => s.isSymbolicLink(), (err: unknown) => Promise.reject(unreadable(err)));
    if (link) throw fail(`${field}: ${linkRefusal(resolved)}`);
  }
  try {
    real = await realpath(resolved);
    info = await stat(real);
  } catch (err) {
    throw unreadable(err);
  }
  const shown = real === resolved ? `'${resolved}'` : `'${resolved}' (really '${real}')`;
  if (kind === 'directory' && !info.isDirectory()) throw fail(`${field} ${shown} is not a directory`);
  if (kind === 'file' && !info.isFile()) throw fail(`${field} ${shown} is not a regular file`);
  const refusal = ownData.refusal(real) ?? systemRefusal(real);
  if (refusal) throw fail(`${field}: ${refusal}`);
  const pseudo = await pseudoFilesystem(kind === 'directory' ? real : path.dirname(real));
  if (pseudo) throw fail(`${field} ${shown} is on a ${pseudo} pseudo-filesystem, whose files are live system state, not documents`);
  try {
    await access(real, kind === 'directory' ? constants.R_OK | constants.X_OK : constants.R_OK);
  } catch {
    throw fail(`${field} ${shown} cannot be read (permission denied)`);
  }
  return real;
}
