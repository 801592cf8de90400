import { fork } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, open, readdir, readFile, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { migrationsDir, pgliteTemplateDir, workerPath } from '../../paths.js';
import { INITDB_ARGS } from './pglite-initdb.js';
import { templateTarFile, usableTemplate } from './pglite-template.js';

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

/**
 * A PGlite instance with the extensions the store uses, on dataDir (in memory when null: from `load`, a database
 * folder as PGlite's dumpDataDir writes it, when given, else made by PGlite's own initdb).
 */
export function pgliteInstance(dataDir: string | null, startParams: string[], load?: Blob): Promise<PGlite> {
  if (!tieringBudgetSet) {
    setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
    tieringBudgetSet = true;
  }
  return PGlite.create({ ...(dataDir ? { dataDir } : load ? { loadDataDir: load } : {}), extensions: { vector }, startParams });
}

/**
 * The build's template as a tar for a database in memory (tests, benches), or undefined when there is no fitting
 * one: PGlite's own initdb then makes it, ~4 CPU-s.
 */
export async function memoryTemplate(templateDir: string | null = pgliteTemplateDir): Promise<Blob | undefined> {
  if (templateDir === null || !(await usableTemplate(templateDir, INITDB_ARGS, migrationsDir))) return undefined;
  try {
    return new Blob([await readFile(templateTarFile(templateDir))]);
  } catch {
    return undefined;
  }
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

/**
 * Removes the folders in `parent` whose names start with `prefix`: what a creation (or a template's build) killed
 * half-way left. One whose process still runs (its parent just died) may resist: it is left.
 */
export async function removeLeftovers(parent: string, prefix: string): Promise<void> {
  const stale = ((await entries(parent)) ?? []).filter((name) => name.startsWith(prefix));
  await Promise.all(stale.map((name) => rm(path.join(parent, name), { recursive: true, force: true }).catch(() => undefined)));
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

/**
 * Copies a folder's files into an empty folder, subfolders first, the files side by side: fs.cp took 3-6 times the
 * CPU for the template's ~1,000 files (0.4-0.6 CPU-s against 0.1). The copies are the user's alone (0600, folders
 * 0700), as PostgreSQL makes its files, whatever the template's modes: its empty tables will hold the user's text.
 * No symbolic links: a database folder has none.
 */
async function copyTree(from: string, to: string): Promise<void> {
  const found = await readdir(from, { recursive: true, withFileTypes: true });
  const target = (entry: { parentPath: string; name: string }): string => path.join(to, path.relative(from, path.join(entry.parentPath, entry.name)));
  await chmod(to, 0o700);
  for (const entry of found) {
    if (entry.isDirectory()) await mkdir(target(entry), { recursive: true, mode: 0o700 });
    else if (!entry.isFile()) throw new Error(`${path.join(entry.parentPath, entry.name)}: not a file or a folder`);
  }
  await Promise.all(
    found.filter((entry) => entry.isFile()).map(async (entry) => {
      await copyFile(path.join(entry.parentPath, entry.name), target(entry));
      await chmod(target(entry), 0o600);
    }),
  );
}

export interface CreateOptions {
  /** Test seam: how long the child may take. */
  timeoutMs?: number;
  /** Test seam: initdb's options instead of INITDB_ARGS. */
  initdbArgs?: string[];
  /** The template to copy when it fits (pglite-template.ts); null: always initdb. Default: the build's. */
  templateDir?: string | null;
}

/** How a database came to be: copied from the build's template, or made by initdb in a child process. */
export type Creation = 'existed' | 'template' | 'initdb';

/**
 * Makes sure dataDir holds a database, creating it when it does not. It is created in a sibling directory and
 * renamed into place once complete, so a creation killed half-way (kill -9, power cut) leaves only a
 * `*.creating-*` sibling, removed by the next creation, and never a directory that looks like a database but is
 * not one. A data directory that holds files but no PG_VERSION is not ours to delete: the error names it.
 */
export async function ensurePgliteCreated(dataDir: string, options: CreateOptions = {}): Promise<Creation> {
  const present = await entries(dataDir);
  if (present?.includes('PG_VERSION')) return 'existed';
  if (present && present.length > 0) {
    throw new Error(`${dataDir} is not a database (it holds files but no PG_VERSION): move it away or delete it, and a new database is created at the next start`);
  }
  const parent = path.dirname(dataDir);
  await mkdir(parent, { recursive: true });
  const prefix = creatingPrefix(dataDir);
  await removeLeftovers(parent, prefix);
  const creating = await mkdtemp(path.join(parent, prefix));
  const initdbArgs = options.initdbArgs ?? INITDB_ARGS;
  const templateDir = options.templateDir === undefined ? pgliteTemplateDir : options.templateDir;
  const template = templateDir === null ? null : await usableTemplate(templateDir, initdbArgs, migrationsDir);
  let copied = false;
  try {
    if (template) {
      // A template this process cannot read whole (another user's build, a damaged one) is passed over: initdb.
      copied = await copyTree(template, creating).then(
        () => true,
        async () => {
          await rm(creating, { recursive: true, force: true });
          await mkdir(creating, { mode: 0o700 });
          return false;
        },
      );
    }
    if (!copied) await createInChild(creating, dataDir, initdbArgs, options.timeoutMs ?? CREATE_TIMEOUT_MS);
    if (present) await rmdir(dataDir);
    await rename(creating, dataDir);
    await syncDir(parent);
  } catch (err) {
    await rm(creating, { recursive: true, force: true });
    throw err;
  }
  return copied ? 'template' : 'initdb';
}
