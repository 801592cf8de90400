/**
 * Child-process entry that creates a new PGlite database (initdb) in the folder it is given and exits
 * (src/store/engines/pglite-create.ts, createInChild). A process, not a thread: the memory initdb leaves
 * referenced goes with it, and its WASM cannot disturb the service's V8. Arguments: the folder, the start
 * parameters as JSON. Exits 0 once the database is closed on disk; on failure, the reason is its last stderr line.
 */
import { createPgliteHere } from '../src/store/engines/pglite-create.js';

// The service died or gave up: a creation nobody waits for stops (the next start removes its folder).
process.on('disconnect', () => process.exit(1));

const [dataDir, startParams] = process.argv.slice(2);
try {
  if (!dataDir || !startParams) throw new Error('usage: pglite-create.process DATA_DIR START_PARAMS_JSON');
  await createPgliteHere(dataDir, JSON.parse(startParams) as string[]);
  process.exit(0);
} catch (err) {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
