/**
 * A new embedded database made once at build time and copied by every creation after that. Creating one with initdb
 * costs ~4-5 CPU-s and ~3 s (a child process that loads PGlite's 9 MB of WebAssembly and bootstraps the catalogues,
 * pglite-create.ts), and its first open then adds pgvector and the schema (~1 CPU-s more): all of what a first start
 * does beyond a restart, ~1 ms of every file's CPU over the 5,412-file Debian benchmark. `npm run build` (postbuild:
 * scripts/build-pglite-template.ts, src/store/template.ts) writes such a database, extension and migrations
 * applied, into build/pglite-template/data (and as a tar, for databases in memory), with a stamp of what made it: the PGlite and pgvector releases, initdb's
 * options, the migrations' text and this module's format. A creation copies it only when the stamp matches the
 * running code; otherwise it runs initdb, and the first open adds the rest, as before. The copy holds what those
 * steps would have written, but for the cluster's system identifier, which every copy shares (PostgreSQL pairs a
 * server with its replicas and backups by it; the embedded database has neither).
 */
import { createHash } from 'node:crypto';
import { access, readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Raised when what the template holds, or how it is made, changes in a way the stamp's other fields do not show. */
const TEMPLATE_FORMAT = 1;

export interface TemplateStamp {
  format: number;
  /** The @electric-sql/pglite release whose initdb made it (its catalogues belong to that PostgreSQL). */
  pglite: string;
  /** The @electric-sql/pglite-pgvector release whose extension it holds. */
  vector: string;
  initdbArgs: string[];
  /** sha256 of the migrations applied (their file names and text, in order). */
  migrations: string;
}

const releases = new Map<string, string>();

/** An installed package's version, from its package.json (found upwards from its entry point). */
async function installed(name: string): Promise<string> {
  let version = releases.get(name);
  if (version !== undefined) return version;
  let dir = path.dirname(createRequire(import.meta.url).resolve(name));
  for (;;) {
    const manifest = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8').catch(() => 'null')) as { name?: string; version?: string } | null;
    if (manifest?.name === name && manifest.version) {
      version = manifest.version;
      break;
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find ${name}'s package.json`);
    dir = parent;
  }
  releases.set(name, version);
  return version;
}

async function migrationsDigest(migrationsDir: string): Promise<string> {
  const hash = createHash('sha256');
  for (const name of (await readdir(migrationsDir)).filter((n) => n.endsWith('.sql')).sort()) {
    hash.update(`${name}\n`).update(await readFile(path.join(migrationsDir, name)));
  }
  return hash.digest('hex');
}

/** The stamp a template made by this code, with these initdb options and these migrations, carries. */
export async function templateStamp(initdbArgs: string[], migrationsDir: string): Promise<TemplateStamp> {
  return {
    format: TEMPLATE_FORMAT,
    pglite: await installed('@electric-sql/pglite'),
    vector: await installed('@electric-sql/pglite-pgvector'),
    initdbArgs: [...initdbArgs],
    migrations: await migrationsDigest(migrationsDir),
  };
}

/**
 * A template folder holds `stamp.json`, `data/` (the database's folder) and `data.tar` (the same as PGlite's
 * dumpDataDir writes it, which an instance in memory loads); the build's is paths.ts's pgliteTemplateDir.
 */
export const templateDataDir = (templateDir: string): string => path.join(templateDir, 'data');
export const templateTarFile = (templateDir: string): string => path.join(templateDir, 'data.tar');
export const templateStampFile = (templateDir: string): string => path.join(templateDir, 'stamp.json');

/**
 * The template's database folder when it exists and its stamp is this code's (none built, an older PGlite, other
 * options or migrations, a half-written one, whose stamp is missing because it is written last: null).
 */
export async function usableTemplate(templateDir: string, initdbArgs: string[], migrationsDir: string): Promise<string | null> {
  let stamp: unknown;
  try {
    stamp = JSON.parse(await readFile(templateStampFile(templateDir), 'utf8'));
  } catch {
    return null;
  }
  if (JSON.stringify(stamp) !== JSON.stringify(await templateStamp(initdbArgs, migrationsDir))) return null;
  try {
    await access(path.join(templateDataDir(templateDir), 'PG_VERSION'));
  } catch {
    return null;
  }
  return templateDataDir(templateDir);
}
