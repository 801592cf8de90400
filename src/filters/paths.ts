/**
 * Paths as the filter sees them: relative to the watched root, POSIX separators, Unicode NFC, no `.` or `..`.
 */
import path from 'node:path';

export interface PathOptions {
  /** Treat `\` as a separator (default: true on Windows only; on POSIX a backslash is a legal name character). */
  windows?: boolean;
}

export const IS_WINDOWS = process.platform === 'win32';

// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\u0000-\u007f]/;

/**
 * Normalises a path relative to the watched root: converts Windows separators (when `windows`), drops a
 * leading `./` and trailing `/`, collapses repeated separators, and converts to NFC. The root itself is ''.
 * Throws on an absolute path or a `..` segment: callers must pass a path inside the root (a bug otherwise).
 */
export function normaliseRelativePath(relativePath: string, options: PathOptions = {}): string {
  let p = relativePath;
  if (options.windows ?? IS_WINDOWS) p = p.replace(/\\/g, '/');
  if (p.startsWith('/') || /^[A-Za-z]:\//.test(p)) {
    throw new TypeError(`filter paths are relative to the watched root, got an absolute path: ${relativePath}`);
  }
  if (p.includes('//')) p = p.replace(/\/{2,}/g, '/');
  while (p.startsWith('./')) p = p.slice(2);
  if (p === '.') p = '';
  if (p.endsWith('/')) p = p.slice(0, -1);
  if (p.endsWith('/.')) p = p.slice(0, -2);
  if (p.includes('/./')) p = p.split('/').filter((s) => s !== '.').join('/');
  if (p === '..' || p.startsWith('../') || p.includes('/../') || p.endsWith('/..')) {
    throw new TypeError(`filter paths must stay inside the watched root, got: ${relativePath}`);
  }
  return NON_ASCII.test(p) ? p.normalize('NFC') : p;
}

/**
 * The path of `absolutePath` relative to `root`, POSIX-separated and NFC, or null when it is not inside the
 * root. The root itself gives ''.
 */
export function relativeToRoot(root: string, absolutePath: string): string | null {
  const rel = path.relative(path.resolve(root), path.resolve(absolutePath));
  if (rel === '') return '';
  if (rel === '..' || rel.startsWith('..' + path.sep) || path.isAbsolute(rel)) return null;
  return normaliseRelativePath(path.sep === '\\' ? rel.replace(/\\/g, '/') : rel, { windows: false });
}

/** The most specific (deepest) of `roots` containing `absolutePath`, with the relative path, or null. */
export function findRoot(
  roots: readonly string[],
  absolutePath: string,
): { root: string; relativePath: string } | null {
  let best: { root: string; relativePath: string } | null = null;
  for (const root of roots) {
    const rel = relativeToRoot(root, absolutePath);
    if (rel === null) continue;
    if (!best || path.resolve(root).length > path.resolve(best.root).length) best = { root, relativePath: rel };
  }
  return best;
}
