import { fork } from 'node:child_process';
import { mkdir, mkdtemp, open, readdir, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { workerPath } from '../../paths.js';
import { INITDB_ARGS } from './pglite-initdb.js';

/**
 * V8 optimises a WebAssembly function once it has run for a budget of executed code (dynamic tiering): 1,800,000
 * on Node 20's V8. Opening PGlite and a no-change restart's reads run a wide spread of its functions about that
 * long, once, and V8's helper threads optimised them all: ~1.4 of such a restart's ~4 CPU-s, for code that then sat
 * idle. Later V8s raised the default to 13,000,000 (Node 24's); that budget, on either, leaves such functions in
 * the baseline compiler's code and still optimises what a bulk run or a search keeps busy (measured in
 * docs/benchmarks/restart.md). A process-wide V8 flag, read when a module is instantiated: set before the first.
 */
const WASM_TIERING_BUDGET = 13_000_000;
let tieringBudgetSet = false;

/** A PGlite instance with the extensions the store uses, on dataDir (in memory when null). */
export function pgliteInstance(dataDir: string | null, startParams: string[]): Promise<PGlite> {
  if (!tieringBudgetSet) {
    setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
    tieringBudgetSet = true;
  }
  return PGlite.create({ ...(dataDir ? { dataDir } : {}), extensions: { vector }, startParams });
}

/** How long the child may take to create a database (~2 s on a loaded laptop) before it is stopped and reported. */
export const CREATE_TIMEOUT_MS = 120_000;

/** Where a database is created before it is renamed into place: `<dataDir>.creating-XXXXXX`, beside it. */
const creatingPrefix = (dataDir: string): string => `${path.basename(dataDir)}.creating-`;

/**
 * Runs createPgliteHere in a child process that then exits (workers/pglite-create.process.ts). The PGlite
 * instance that runs initdb keeps its module's memory referenced (~450 MB: 697 MB RSS right after creating a
 * database in-process, 315 MB when it was created elsewhere and opened again), so the store must never be that
 * instance. A thread did the same job but Node 24's V8 aborted once while such threads, each compiling PGlite's
 * WASM, came and went (`UnregisterWasmAllocation`); a process of its own cannot touch this one's WASM bookkeeping.
 */
function createInChild(folder: string, dataDir: string, initdbArgs: string[], timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    // Not the parent's flags (a test runner's, an inspector's): V8's baseline WASM compiler only. initdb runs once
    // and briefly, and optimising PGlite's 9 MB module for it cost more than it saved (measured, the child alone:
    // 4.4-4.8 → 3.2-3.5 CPU-s and 790-1,110 → 640-760 MB peak RSS on Node 20 and 24).
    const child = fork(workerPath('pglite-create.process'), [folder, JSON.stringify(initdbArgs)], {
      execArgv: ['--liftoff-only'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const failed = (why: string): void => reject(new Error(`creating the embedded database in ${dataDir} failed: ${why}`));
    child.once('error', (err) => {
      clearTimeout(timer);
      failed(err.message);
    });
    // Settled on exit only: once it has, nothing writes into the folder any more.
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) reject(new Error(`creating the embedded database in ${dataDir} took longer than ${timeoutMs / 1000} s; it was stopped`));
      else if (code === 0) resolve();
      else failed(stderr.trim().split('\n').at(-1) || (signal ? `killed by ${signal}` : `exit code ${code}`));
    });
  });
}

async function entries(dir: string): Promise<string[] | null> {
  try {
    return await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Makes a rename durable: the directory's entry is only on disk once the directory itself is synced. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export interface CreateOptions {
  /** Test seam: how long the child may take. */
  timeoutMs?: number;
  /** Test seam: initdb's options instead of INITDB_ARGS. */
  initdbArgs?: string[];
}

/**
 * Makes sure dataDir holds a database, creating it when it does not. It is created in a sibling directory and
 * renamed into place once complete, so a creation killed half-way (kill -9, power cut) leaves only a
 * `*.creating-*` sibling, removed by the next creation, and never a directory that looks like a database but is
 * not one. A data directory that holds files but no PG_VERSION is not ours to delete: the error names it.
 */
export async function ensurePgliteCreated(dataDir: string, options: CreateOptions = {}): Promise<void> {
  const present = await entries(dataDir);
  if (present?.includes('PG_VERSION')) return;
  if (present && present.length > 0) {
    throw new Error(`${dataDir} is not a database (it holds files but no PG_VERSION): move it away or delete it, and a new database is created at the next start`);
  }
  const parent = path.dirname(dataDir);
  await mkdir(parent, { recursive: true });
  const prefix = creatingPrefix(dataDir);
  const stale = ((await entries(parent)) ?? []).filter((name) => name.startsWith(prefix));
  // A creation killed half-way; one whose process still runs (its parent just died) may resist: it is left.
  await Promise.all(stale.map((name) => rm(path.join(parent, name), { recursive: true, force: true }).catch(() => undefined)));
  const creating = await mkdtemp(path.join(parent, prefix));
  try {
    await createInChild(creating, dataDir, options.initdbArgs ?? INITDB_ARGS, options.timeoutMs ?? CREATE_TIMEOUT_MS);
    if (present) await rmdir(dataDir);
    await rename(creating, dataDir);
    await syncDir(parent);
  } catch (err) {
    await rm(creating, { recursive: true, force: true });
    throw err;
  }
}
