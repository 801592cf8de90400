/**
 * Builds the template database every new embedded database is copied from (engines/pglite-template.ts says why):
 * initdb's database, opened once as the store opens one (pgvector created) and migrated, then closed cleanly, a tar
 * of it beside it, its stamp written last. Run by `npm run build` (scripts/build-pglite-template.ts).
 */
import { chmod, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { migrationsDir, pgliteTemplateDir } from '../paths.js';
import { PGlite } from '@electric-sql/pglite';
import { ensurePgliteCreated, pgliteInstance, removeLeftovers } from './engines/pglite-create.js';
import { INITDB_ARGS } from './engines/pglite-initdb.js';
import { templateDataDir, templateStamp, templateStampFile, templateTarFile, usableTemplate } from './engines/pglite-template.js';
import { openPglite } from './engines/pglite.js';
import { migrate, loadMigrations } from './migrate.js';

async function readableByAll(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    await chmod(path.join(entry.parentPath, entry.name), entry.isDirectory() ? 0o755 : 0o644);
  }
}

/** Makes the template in templateDir unless the one there fits the running code already. */
export async function buildPgliteTemplate(templateDir = pgliteTemplateDir): Promise<'up to date' | 'built'> {
  if (await usableTemplate(templateDir, INITDB_ARGS, migrationsDir)) return 'up to date';
  // A fresh folder beside the old template, swapped in once complete: a build stopped half-way leaves the old one
  // (or none), never a stamp that vouches for a half-made database.
  const building = `${templateDir}.building-${process.pid}`;
  await mkdir(path.dirname(templateDir), { recursive: true });
  await removeLeftovers(path.dirname(templateDir), `${path.basename(templateDir)}.building-`);
  await mkdir(building);
  try {
    const data = templateDataDir(building);
    await ensurePgliteCreated(data, { templateDir: null });
    const db = await openPglite(data);
    try {
      await migrate(db, await loadMigrations(migrationsDir));
    } finally {
      await db.close();
    }
    // The same database as a tar, for instances in memory (PGlite's dumpDataDir: the layout its loadDataDir reads).
    const instance = await pgliteInstance(data, PGlite.defaultStartParams);
    try {
      await writeFile(templateTarFile(building), new Uint8Array(await (await instance.dumpDataDir('none')).arrayBuffer()));
    } finally {
      await instance.close();
    }
    // Readable by every user (an image builds it as root and runs as another): it holds no one's data, and each
    // copy is made the user's alone (pglite-create.ts).
    await readableByAll(building);
    await writeFile(templateStampFile(building), `${JSON.stringify(await templateStamp(INITDB_ARGS, migrationsDir), null, 2)}\n`);
    await rm(templateDir, { recursive: true, force: true });
    await rename(building, templateDir);
  } catch (err) {
    await rm(building, { recursive: true, force: true });
    throw err;
  }
  return 'built';
}
