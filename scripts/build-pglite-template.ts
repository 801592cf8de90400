/**
 * Makes the new embedded database that every creation of one copies (src/store/engines/pglite-template.ts): run by
 * `npm run build` (postbuild, so `npm ci` and the Docker image's build stage make it), skipped in milliseconds when
 * build/pglite-template/stamp.json says it was made by the installed PGlite and pgvector with the store's initdb
 * options and migrations. A failure only warns: the service then makes each new database with initdb.
 *
 *   node dist/scripts/build-pglite-template.js
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { pgliteTemplateDir } from '../src/paths.js';
import { buildPgliteTemplate } from '../src/store/template.js';

async function main(): Promise<void> {
  const started = performance.now();
  const outcome = await buildPgliteTemplate();
  if (outcome === 'built') console.log(`the embedded database's template: built in ${pgliteTemplateDir} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  // Not fatal: without a template (build/ not writable, say) every new database is made by initdb, as before.
  main().catch((err: unknown) => {
    console.warn(`the embedded database's template was not built (new databases are made by initdb, ~4 s more): ${err instanceof Error ? err.message : String(err)}`);
  });
}
