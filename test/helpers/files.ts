import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface TempTree {
  root: string;
  path(...parts: string[]): string;
  write(relative: string, content: string | Uint8Array): Promise<string>;
  remove(): Promise<void>;
}

/** A real directory under the OS temp folder, filled with the given files. */
export async function tempTree(files: Record<string, string | Uint8Array> = {}): Promise<TempTree> {
  const root = await mkdtemp(path.join(tmpdir(), 'filesift-tree-'));
  const tree: TempTree = {
    root,
    path: (...parts) => path.join(root, ...parts),
    async write(relative, content) {
      const full = path.join(root, relative);
      await mkdir(path.dirname(full), { recursive: true });
      await writeFile(full, content);
      return full;
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
  for (const [relative, content] of Object.entries(files)) await tree.write(relative, content);
  return tree;
}
