/**
 * Builds the web app (vite) into dist/web, only when it is stale: `npm start` runs the build step every time, and
 * a vite build costs seconds while a check costs milliseconds.
 *
 *   node dist/scripts/build-web.js [--force]      (run by `npm run build:web`, hence by `npm run build` and `npm start`)
 *
 * After a build, dist/web/.inputs.json lists the files the bundle was made from: every module rollup read (from
 * its own output, so an import added later is covered by the importing file's new mtime), plus index.html, the
 * vite config, web/public and package-lock.json (a dependency's new version). The app is rebuilt when that list is
 * missing, a listed file is gone, or one is newer than the list.
 */
import { existsSync, readdirSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { build, type Rollup } from 'vite';
import { packageRoot } from '../src/paths.js';

const WEB = path.join(packageRoot, 'web');
const OUT = path.join(packageRoot, 'dist', 'web');
const INPUTS = path.join(OUT, '.inputs.json');
/** Always inputs, besides the modules rollup reports. */
const FIXED = [path.join(WEB, 'index.html'), path.join(WEB, 'vite.config.ts'), path.join(packageRoot, 'package-lock.json')];

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

/** Why the app must be built, or null when dist/web is newer than every file it was built from. */
export function staleReason(): string | null {
  if (!existsSync(INPUTS)) return 'never built here';
  const builtAt = statSync(INPUTS).mtimeMs;
  const listed = JSON.parse(readFileSync(INPUTS, 'utf8')) as string[];
  for (const file of [...listed, ...FIXED, ...filesUnder(path.join(WEB, 'public'))]) {
    const abs = path.resolve(packageRoot, file);
    if (!existsSync(abs)) return `${file} is gone`;
    if (statSync(abs).mtimeMs > builtAt) return `${path.relative(packageRoot, abs)} changed`;
  }
  return null;
}

/** Our own source files among the bundle's modules (not node_modules, not rollup's virtual modules). */
function sourceModules(output: Rollup.RollupOutput | Rollup.RollupOutput[] | Rollup.RollupWatcher): string[] {
  const outputs = Array.isArray(output) ? output : 'output' in output ? [output] : [];
  const ids = new Set<string>();
  for (const o of outputs) {
    for (const chunk of o.output) {
      if (chunk.type !== 'chunk') continue;
      for (const id of chunk.moduleIds) {
        if (!id.startsWith('\0') && path.isAbsolute(id) && !id.includes(`${path.sep}node_modules${path.sep}`)) ids.add(path.relative(packageRoot, id));
      }
    }
  }
  return [...ids].sort();
}

async function main(force: boolean): Promise<void> {
  const reason = force ? 'forced' : staleReason();
  if (reason === null) {
    console.log('web app is up to date in dist/web');
    return;
  }
  const started = Date.now();
  const output = await build({ configFile: path.join(WEB, 'vite.config.ts') });
  writeFileSync(INPUTS, JSON.stringify(sourceModules(output), null, 1) + '\n');
  console.log(`built the web app (${reason}) in ${Date.now() - started} ms`);
}

main(process.argv.includes('--force')).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
