import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root (the folder holding package.json), found from this file in src/ or in dist/src/. */
function findPackageRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'sql'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('filesift: cannot locate the package root (package.json beside sql/)');
    dir = parent;
  }
}

export const packageRoot = findPackageRoot();
export const migrationsDir = path.join(packageRoot, 'sql');
/** Compiled JavaScript lives under dist/; worker entry points are resolved from here. */
export const distRoot = path.join(packageRoot, 'dist');
export const workerPath = (name: string): string => path.join(distRoot, 'workers', `${name}.js`);
/** The built-in embedder (model.onnx, vocab.txt, meta.json), built from GloVe at install time (`npm run build:embedder`). */
export const builtinEmbedderDir = path.join(packageRoot, 'build', 'models', 'builtin-static');
/** A new embedded database made at build time (`npm run build`), copied by every creation (store/engines/pglite-template.ts). */
export const pgliteTemplateDir = path.join(packageRoot, 'build', 'pglite-template');
/** The built web app (vite builds web/ into it at `npm run build`); the service serves it at `/`. */
export const webAppDir = path.join(distRoot, 'web');
