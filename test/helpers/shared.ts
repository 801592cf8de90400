import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (tests run from dist/test/..., so walk up to the folder holding package.json). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * The shared data folder that sits beside the repository (models, datasets). Never copied into the repo. Its real
 * path (../shared is often a link): filesift reads files by their real paths only (src/lib/no-follow.ts), as the
 * folders a person names are resolved before anything below them is read.
 */
export const sharedRoot = realPathIfPresent(process.env.FILESIFT_SHARED_DIR ?? path.resolve(repoRoot, '..', 'shared'));

function realPathIfPresent(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p; // missing: sharedPath() says so when it is used
  }
}

/**
 * Absolute path of something under ../shared. Throws a message that says exactly what is missing, so a
 * test run without the shared data fails loudly instead of passing vacuously.
 */
export function sharedPath(...parts: string[]): string {
  const full = path.join(sharedRoot, ...parts);
  if (!existsSync(full)) {
    throw new Error(
      `Test data missing: ${full}. These tests need the shared data folder beside the repository ` +
        `(../shared, or set FILESIFT_SHARED_DIR).`,
    );
  }
  return full;
}
