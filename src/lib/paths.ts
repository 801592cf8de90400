/**
 * Containment of absolute paths: the one test of "is this path inside that directory" (on a path boundary, so
 * /a/b never contains /a/bc), and the guard that keeps filesift's own data directory out of everything it
 * watches, walks or indexes (its database would otherwise index itself).
 */
import path from 'node:path';

/** True when `child` is `parent` or lies below it. Both are absolute; neither is resolved through links. */
export function isWithin(parent: string, child: string): boolean {
  if (child === parent) return true;
  const prefix = parent.endsWith(path.sep) ? parent : parent + path.sep;
  return child.startsWith(prefix);
}

/** filesift's own data directory: never watched, walked or indexed. */
export class OwnDataDir {
  readonly path: string;

  constructor(dataDir: string) {
    this.path = path.resolve(dataDir);
  }

  /** True for the data directory and everything in it. */
  contains(absolutePath: string): boolean {
    return isWithin(this.path, path.resolve(absolutePath));
  }

  /** Why a path is refused, or null when it is not inside the data directory. */
  refusal(absolutePath: string): string | null {
    return this.contains(absolutePath) ? `'${absolutePath}' is inside filesift's own data directory` : null;
  }
}
