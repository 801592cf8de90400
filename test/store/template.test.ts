import { expect } from 'chai';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { migrationsDir } from '../../src/paths.js';
import { ensurePgliteCreated, memoryTemplate, pgliteInstance } from '../../src/store/engines/pglite-create.js';
import { INITDB_ARGS } from '../../src/store/engines/pglite-initdb.js';
import { templateDataDir, templateStamp, templateStampFile, usableTemplate } from '../../src/store/engines/pglite-template.js';
import { PGlite } from '@electric-sql/pglite';
import { openPglite } from '../../src/store/engines/pglite.js';
import { currentVersion, loadMigrations } from '../../src/store/migrate.js';
import { openStore } from '../../src/store/store.js';
import { buildPgliteTemplate } from '../../src/store/template.js';
import { indexedFileWrite } from '../helpers/store.js';

/**
 * The schema a database holds, as rows that do not depend on how it was made: relations, columns, indexes,
 * functions (their source hashed), triggers, extensions, and every table's rows outside pg_catalog (counted).
 */
async function schemaOf(dataDir: string): Promise<Record<string, unknown>> {
  const db = await openPglite(dataDir);
  try {
    const rows = async (sql: string): Promise<unknown[]> => (await db.query(sql)).rows;
    return {
      relations: await rows(
        "SELECT c.relname, c.relkind, c.relpersistence FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' ORDER BY 1",
      ),
      columns: await rows(
        "SELECT c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY 1, 2",
      ),
      indexes: await rows("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1"),
      functions: await rows(
        "SELECT p.proname, pg_get_function_identity_arguments(p.oid) AS args, md5(p.prosrc) AS source FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' ORDER BY 1, 2",
      ),
      triggers: await rows('SELECT tgname, pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1'),
      extensions: await rows('SELECT extname, extversion FROM pg_extension ORDER BY 1'),
      textSearch: await rows("SELECT cfgname FROM pg_ts_config c JOIN pg_namespace n ON n.oid = c.cfgnamespace WHERE n.nspname = 'public' ORDER BY 1"),
      version: await currentVersion(db),
    };
  } finally {
    await db.close();
  }
}

describe("new embedded databases copied from the build's template", function () {
  this.timeout(300_000);
  let parent: string;
  let templateDir: string;

  before(async () => {
    parent = await mkdtemp(path.join(tmpdir(), 'filesift-template-'));
    templateDir = path.join(parent, 'template');
    expect(await buildPgliteTemplate(templateDir)).to.equal('built');
  });
  after(() => rm(parent, { recursive: true, force: true }));

  it('holds what initdb, the first open and the migrations make: the same schema, extension and version', async () => {
    const copied = path.join(parent, 'copied');
    const made = path.join(parent, 'made');
    expect(await ensurePgliteCreated(copied, { templateDir })).to.equal('template');
    expect(await ensurePgliteCreated(made, { templateDir: null })).to.equal('initdb');
    const db = await openPglite(made);
    await openStore(db); // the first start's migrations
    await db.close();

    const [a, b] = [await schemaOf(copied), await schemaOf(made)];
    expect((a.relations as unknown[]).length).to.be.above(10);
    expect(a.extensions).to.deep.include({ extname: 'vector', extversion: (b.extensions as { extname: string; extversion: string }[]).find((e) => e.extname === 'vector')?.extversion });
    expect(a.version).to.equal((await loadMigrations(migrationsDir)).length);
    expect(a).to.deep.equal(b);
  });

  it('gives each database its own copy: what one writes, neither the template nor the next copy holds', async () => {
    const files = async (dir: string): Promise<string> => {
      const found = await readdir(dir, { recursive: true, withFileTypes: true });
      const listed = await Promise.all(found.filter((e) => e.isFile()).map(async (e) => {
        const file = path.join(e.parentPath, e.name);
        return `${path.relative(dir, file)}:${(await stat(file)).size}:${(await readFile(file)).toString('base64').length}`;
      }));
      return listed.sort().join('\n');
    };
    const before = await files(templateDir);
    const first = path.join(parent, 'first');
    expect(await ensurePgliteCreated(first, { templateDir })).to.equal('template');
    const db = await openPglite(first);
    try {
      const store = await openStore(db);
      await store.files.saveIndexed(indexedFileWrite('/docs/one.txt', []));
      expect(await store.files.known(['/docs/one.txt'])).to.have.length(1);
    } finally {
      await db.close();
    }
    expect(await files(templateDir)).to.equal(before);

    const second = path.join(parent, 'second');
    expect(await ensurePgliteCreated(second, { templateDir })).to.equal('template');
    const again = await openPglite(second);
    try {
      expect(await (await openStore(again)).files.known(['/docs/one.txt'])).to.have.length(0);
    } finally {
      await again.close();
    }
  });

  it("makes each copy its user's alone (files 0600, folders 0700) from a template every user may read", async () => {
    const modes = async (dir: string): Promise<Set<string>> => {
      const found = await readdir(dir, { recursive: true, withFileTypes: true });
      return new Set(await Promise.all(found.map(async (e) => `${e.isDirectory() ? 'd' : 'f'}${((await stat(path.join(e.parentPath, e.name))).mode & 0o777).toString(8)}`)));
    };
    expect([...(await modes(templateDir))].sort()).to.deep.equal(['d755', 'f644']);
    const copy = path.join(parent, 'private');
    expect(await ensurePgliteCreated(copy, { templateDir })).to.equal('template');
    expect([...(await modes(copy))].sort()).to.deep.equal(['d700', 'f600']);
    expect((await stat(copy)).mode & 0o777).to.equal(0o700);
  });

  it('passes over a template it cannot copy whole, and makes the database with initdb', async () => {
    // A damaged template: something in its database folder that is neither a file nor a folder.
    const damaged = path.join(parent, 'damaged');
    await cp(templateDir, damaged, { recursive: true });
    await symlink('/etc/hostname', path.join(templateDataDir(damaged), 'base', 'link'));
    const dataDir = path.join(parent, 'from-damaged');
    expect(await ensurePgliteCreated(dataDir, { templateDir: damaged })).to.equal('initdb');
    const db = await openPglite(dataDir);
    try {
      // initdb's database: no schema yet (the store's first open migrates it)
      expect((await db.query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t")).rows).to.deep.equal([{ t: null }]);
    } finally {
      await db.close();
    }
    expect((await readdir(parent)).filter((name) => name.includes('.creating-'))).to.deep.equal([]);
  });

  it('loads into a database in memory (its tar): migrated, with pgvector; without a fitting template, none is loaded', async () => {
    const tar = await memoryTemplate(templateDir);
    expect(tar).to.be.an.instanceOf(Blob);
    const db = await pgliteInstance(null, PGlite.defaultStartParams, tar);
    try {
      expect((await db.query<{ v: string }>("SELECT '[1,2]'::vector::text AS v")).rows).to.deep.equal([{ v: '[1,2]' }]);
      expect((await db.query<{ version: number }>('SELECT max(version) AS version FROM schema_migrations')).rows[0]?.version).to.equal(
        (await loadMigrations(migrationsDir)).length,
      );
    } finally {
      await db.close();
    }
    expect(await memoryTemplate(null)).to.equal(undefined);
    expect(await memoryTemplate(path.join(parent, 'no-such-template'))).to.equal(undefined);
  });

  it('is used only when its stamp is this code\'s: another PGlite, other options or migrations, or no stamp mean initdb', async () => {
    const stampFile = templateStampFile(templateDir);
    const stamp = await readFile(stampFile, 'utf8');
    expect(JSON.parse(stamp)).to.deep.equal(await templateStamp(INITDB_ARGS, migrationsDir));
    expect(await usableTemplate(templateDir, INITDB_ARGS, migrationsDir)).to.equal(templateDataDir(templateDir));
    expect(await usableTemplate(templateDir, ['-c', 'shared_buffers=32MB'], migrationsDir)).to.equal(null);
    const otherMigrations = path.join(parent, 'sql');
    await rm(otherMigrations, { recursive: true, force: true });
    await cp(migrationsDir, otherMigrations, { recursive: true });
    await writeFile(path.join(otherMigrations, '9999_later.sql'), 'SELECT 1;');
    expect(await usableTemplate(templateDir, INITDB_ARGS, otherMigrations)).to.equal(null);
    try {
      await writeFile(stampFile, stamp.replace(/"pglite": "[^"]+"/, '"pglite": "0.0.1"'));
      expect(await usableTemplate(templateDir, INITDB_ARGS, migrationsDir)).to.equal(null);
      expect(await ensurePgliteCreated(path.join(parent, 'older'), { templateDir })).to.equal('initdb');
      await rm(stampFile); // a build stopped before its stamp
      await mkdir(path.join(parent, 'template.building-1')); // and one stopped earlier still, by another process
      expect(await ensurePgliteCreated(path.join(parent, 'unstamped'), { templateDir })).to.equal('initdb');
      // The build makes it again; a fitting one it leaves alone.
      expect(await buildPgliteTemplate(templateDir)).to.equal('built');
      expect(await buildPgliteTemplate(templateDir)).to.equal('up to date');
      expect((await readdir(parent)).filter((name) => name.startsWith('template.building-'))).to.deep.equal([]);
    } finally {
      if (!(await usableTemplate(templateDir, INITDB_ARGS, migrationsDir))) await writeFile(stampFile, stamp);
    }
  });
});
