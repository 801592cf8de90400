/** The files of a corpus or an index directory, for the benchmarks. */
import { walkFiles } from '../../src/filters/walk.js';

/**
 * Regular files under `dir`, sorted by path (a corpus to index), walked as the service walks a watched folder
 * (filters/walk.ts): a symbolic link is never followed. Not readdir's `recursive`: on Node 26 it follows links to
 * folders (the 5,412-file Debian tree counted 8,093: its four links to folders inside it, the Python docs among them,
 * walked as more files).
 */
export async function listFiles(dir: string, keep: (file: string) => boolean = () => true): Promise<string[]> {
  const files: string[] = [];
  for await (const file of walkFiles(dir)) if (keep(file.path)) files.push(file.path);
  return files.sort();
}

/** Bytes of every file under `dir` (an index directory: PGlite's files), links not followed (see listFiles). */
export async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  for await (const file of walkFiles(dir)) total += file.size;
  return total;
}
