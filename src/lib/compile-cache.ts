/**
 * V8's compiled code for the modules a start loads (ours and the packages'), kept on disk between starts: Node 22.1
 * and later (`module.enableCompileCache`; the Docker image's Node 24), a no-op on Node 20. Entries are checked
 * against each module's source, so an upgrade or an edited file is compiled afresh. The worker threads started
 * afterwards use the same cache.
 */
import nodeModule from 'node:module';

type EnableCompileCache = (directory?: string) => unknown;

/** Turns the cache on in `directory` (created if missing); false when this Node has no compile cache. */
export function enableCompileCache(directory: string): boolean {
  const enable = (nodeModule as unknown as { enableCompileCache?: EnableCompileCache }).enableCompileCache;
  if (typeof enable !== 'function') return false;
  try {
    enable(directory);
    return true;
  } catch {
    return false; // a cache is an optimisation: an unwritable directory only means a slower start
  }
}
