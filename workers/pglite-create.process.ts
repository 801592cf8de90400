/**
 * Child-process entry that creates a new PGlite database (initdb) in the folder it is given and exits
 * (src/store/engines/pglite-create.ts, createInChild). A process, not a thread: the memory initdb leaves
 * referenced goes with it, and its WASM cannot disturb the service's V8. Arguments: the folder, initdb's options
 * as JSON. Exits 0 once initdb's files are on disk; on failure, the reason is its last stderr line.
 */
import { createPgliteHere } from '../src/store/engines/pglite-initdb.js';

// The service died or gave up: a creation nobody waits for stops (the next start removes its folder).
process.on('disconnect', () => process.exit(1));

const [dataDir, initdbArgs] = process.argv.slice(2);
try {
  if (!dataDir || !initdbArgs) throw new Error('usage: pglite-create.process DATA_DIR INITDB_ARGS_JSON');
  await createPgliteHere(dataDir, JSON.parse(initdbArgs) as string[]);
  process.exit(0);
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
