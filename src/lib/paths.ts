/**
 * Containment of absolute paths: the one test of "is this path inside that directory" (on a path boundary, so
 * /a/b never contains /a/bc), the guard that keeps filesift's own data directory out of everything it watches,
 * walks or indexes (its database would otherwise index itself), and the system folders that are never indexed.
 *
 * Links: a folder a person names (a watch, a directory or file to index) is resolved to its real path once, when
 * it is named; below it no symbolic link is ever followed (see no-follow.ts). So every path compared here is a
 * real path, and the data directory is compared by its real path too: a link to it cannot smuggle it in.
 */
import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';

/** True when `child` is `parent` or lies below it. Both are absolute; neither is resolved through links. */
export function isWithin(parent: string, child: string): boolean {
  if (child === parent) return true;
  const prefix = parent.endsWith(path.sep) ? parent : parent + path.sep;
  return child.startsWith(prefix);
}

/**
 * The real path of `p` (every link resolved). A path that does not exist (yet) keeps its missing tail under the
 * real path of its deepest existing ancestor.
 */
/**
 * A file name that is not valid UTF-8 reaches us as a string with U+FFFD for its bad bytes: that string names no
 * file, so such a file cannot be opened. The scan and the watcher count it as failed, with this reason.
 */
export const INVALID_NAME_REASON =
  'its name is not valid UTF-8 (shown with \uFFFD for the bad bytes), so it cannot be opened by name: rename it to index it';

/** Whether a path that was not found stands for a file whose name is not valid UTF-8 (see INVALID_NAME_REASON). */
export function hasInvalidName(p: string): boolean {
  return path.basename(p).includes('\uFFFD');
}

export async function realPathOf(p: string): Promise<string> {
  const absolute = path.resolve(p);
  try {
    return await realpath(absolute);
  } catch {
    const parent = path.dirname(absolute);
    if (parent === absolute) return absolute;
    return path.join(await realPathOf(parent), path.basename(absolute));
  }
}

function realPathOfSync(p: string): string {
  const absolute = path.resolve(p);
  try {
    return realpathSync.native(absolute);
  } catch {
    const parent = path.dirname(absolute);
    if (parent === absolute) return absolute;
    return path.join(realPathOfSync(parent), path.basename(absolute));
  }
}

/** filesift's own data directory: never watched, walked or indexed. */
export class OwnDataDir {
  /** The real path (links resolved). */
  readonly path: string;
  /** The path as configured, when it differs from the real one (a path spelt through it is refused too). */
  readonly #spelt: string;

  constructor(dataDir: string) {
    this.#spelt = path.resolve(dataDir);
    this.path = realPathOfSync(this.#spelt);
  }

  /** True for the data directory and everything in it, by its real path or its configured spelling. */
  contains(absolutePath: string): boolean {
    const p = path.resolve(absolutePath);
    return isWithin(this.path, p) || isWithin(this.#spelt, p);
  }

  /** Whether a path at or under `root` (resolved) can be the data directory or inside it: they overlap. */
  overlaps(root: string): boolean {
    return [this.path, this.#spelt].some((own) => isWithin(root, own) || isWithin(own, root));
  }

  /** Why a (real) path is refused, or null when it is not inside the data directory. */
  refusal(absolutePath: string): string | null {
    return this.contains(absolutePath) ? `'${absolutePath}' is inside filesift's own data directory (${this.path})` : null;
  }
}

/**
 * Folders that are never watched, walked or indexed: the file-system root as a whole (it holds the operating
 * system, other users' files and the kernel's pseudo-filesystems) and the pseudo-filesystems themselves, whose
 * "files" are live kernel state (/proc/<pid>/environ, /sys, device nodes, sockets and tmpfs state in /run).
 */
export const SYSTEM_FOLDERS: readonly string[] = Object.freeze(['/proc', '/sys', '/dev', '/run']);

/** Why a (real) path may not be watched or indexed as a folder or file, or null. */
export function systemRefusal(realPath: string): string | null {
  if (process.platform === 'win32') return null;
  if (realPath === path.parse(realPath).root) {
    return `'${realPath}' is the root of the file system: watch or index your own folders (e.g. your home directory) instead`;
  }
  const system = SYSTEM_FOLDERS.find((folder) => isWithin(folder, realPath));
  return system ? `'${realPath}' is inside ${system}, a kernel pseudo-filesystem whose files are live system state, not documents` : null;
}
