/**
 * Bundles TypeBox into dist/vendor/typebox/, which our code imports as `#typebox` and `#typebox/value`
 * (package.json `imports`; the types still come from the package in node_modules).
 *
 *   node dist/scripts/build-vendor.js [--force]      (run by `npm run build`, hence by `npm ci` and `npm start`)
 *
 * Why: the package ships 709 small ES modules, and Node's ES module loader pays per module (resolve, open, read,
 * link), not per line. Loading `typebox` and `typebox/value` cost 240–320 CPU ms on this machine against 24 ms for
 * the same code in one bundle, in every thread that validates (the main thread at every start, before the store
 * opens; a pipeline thread that may ask a remote model). Every import of TypeBox goes through `#typebox`
 * (an ESLint rule), so one copy of its module state (formats, settings) serves the whole program.
 *
 * Skips in milliseconds when meta.json names the installed TypeBox version and this builder's version.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { rolldown } from 'rolldown';
import { packageRoot } from '../src/paths.js';

const OUT = path.join(packageRoot, 'dist', 'vendor', 'typebox');
const META = path.join(OUT, 'meta.json');
/** Bump when the bundle's shape changes (entries, options). */
const BUILDER_VERSION = 1;
/** The package entry points we import, and the file each becomes (package.json `imports` names them). */
const ENTRIES = { index: 'typebox', value: 'typebox/value' } as const;

interface Meta {
  builder: number;
  typebox: string;
}

function installedVersion(): string {
  // The package exports no ./package.json; ours is an application, so its copy sits in our node_modules.
  const pkg = JSON.parse(readFileSync(path.join(packageRoot, 'node_modules', 'typebox', 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** Why the bundle must be made, or null when it is current. */
export function staleReason(version: string): string | null {
  if (!existsSync(META)) return 'never built here';
  const meta = JSON.parse(readFileSync(META, 'utf8')) as Partial<Meta>;
  if (meta.builder !== BUILDER_VERSION) return 'built by another version of this script';
  if (meta.typebox !== version) return `typebox ${String(meta.typebox)} → ${version}`;
  for (const name of Object.keys(ENTRIES)) if (!existsSync(path.join(OUT, `${name}.mjs`))) return `${name}.mjs is gone`;
  return null;
}

async function main(force: boolean): Promise<void> {
  const version = installedVersion();
  const reason = force ? 'forced' : staleReason(version);
  if (reason === null) {
    console.log(`typebox ${version} bundle is up to date in dist/vendor/typebox`);
    return;
  }
  const started = Date.now();
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const require = createRequire(path.join(packageRoot, 'package.json'));
  const input = Object.fromEntries(Object.entries(ENTRIES).map(([name, specifier]) => [name, require.resolve(specifier)]));
  const bundle = await rolldown({ input, platform: 'node', logLevel: 'warn' });
  try {
    await bundle.write({ dir: OUT, format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs' });
  } finally {
    await bundle.close();
  }
  // Written last: a build cut short leaves no meta.json, so the next build starts again.
  writeFileSync(META, JSON.stringify({ builder: BUILDER_VERSION, typebox: version } satisfies Meta) + '\n');
  console.log(`bundled typebox ${version} (${reason}) into dist/vendor/typebox in ${Date.now() - started} ms`);
}

main(process.argv.includes('--force')).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
