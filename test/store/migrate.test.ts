import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openPglite } from '../../src/store/engines/pglite.js';
import { openPostgres } from '../../src/store/engines/postgres.js';
import { currentVersion, loadMigrations, migrate, SchemaTooNewError } from '../../src/store/migrate.js';
import { migrationsDir } from '../../src/paths.js';
import type { SqlDatabase } from '../../src/store/sql.js';
import { expectRejection } from '../helpers/assert.js';
import { createScratchDatabase, forEachEngine, type ScratchDatabase } from '../helpers/engines.js';

describe('loadMigrations', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'filesift-mig-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads the repository migrations in version order', async () => {
    const migrations = await loadMigrations(migrationsDir);
    expect(migrations.length).to.be.greaterThan(1);
    expect(migrations.map((m) => m.version)).to.deep.equal(migrations.map((_, i) => i + 1));
  });

  it('refuses a gap in the numbering and a badly named file', async () => {
    await writeFile(path.join(dir, '0001_a.sql'), 'SELECT 1');
    await writeFile(path.join(dir, '0003_c.sql'), 'SELECT 1');
    await expectRejection(loadMigrations(dir), /expected version 2/);
    await rm(path.join(dir, '0003_c.sql'));
    await writeFile(path.join(dir, '2_b.sql'), 'SELECT 1');
    await expectRejection(loadMigrations(dir), /not of the form/);
  });
});

forEachEngine('migrate', (engine) => {
  let db: SqlDatabase;
  let scratch: ScratchDatabase | null = null;
  beforeEach(async () => {
    if (engine === 'postgres') {
      scratch = await createScratchDatabase();
      db = await openPostgres(scratch.url);
    } else {
      db = await openPglite(null, { template: false }); // an empty database: no migration applied yet
    }
  });
  afterEach(async () => {
    await db.close();
    await scratch?.drop();
  });

  const sample = [
    { version: 1, name: 'create_a', sql: 'CREATE TABLE a (id int)' },
    { version: 2, name: 'create_b', sql: 'CREATE TABLE b (id int); INSERT INTO b VALUES (1)' },
  ];

  it('applies pending migrations once and records them', async () => {
    expect(await migrate(db, sample)).to.deep.equal({ from: 0, to: 2 });
    expect(await migrate(db, sample)).to.deep.equal({ from: 2, to: 2 });
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM b');
    expect(rows[0]!.n).to.equal(1);
    expect(await currentVersion(db)).to.equal(2);
  });

  it('leaves the database at the last complete version when a migration fails', async () => {
    const broken = [...sample, { version: 3, name: 'broken', sql: 'CREATE TABLE c (id int); SELECT * FROM missing' }];
    await expectRejection(migrate(db, broken), /missing/);
    expect(await currentVersion(db)).to.equal(2);
    const { rows } = await db.query(`SELECT 1 FROM information_schema.tables WHERE table_name = 'c'`);
    expect(rows).to.have.length(0);
  });

  it('refuses a database whose schema is newer than the code', async () => {
    await migrate(db, sample);
    await expectRejection(migrate(db, sample.slice(0, 1)), SchemaTooNewError);
  });

  it('applies the repository migrations', async () => {
    const migrations = await loadMigrations(migrationsDir);
    await migrate(db, migrations);
    expect(await currentVersion(db)).to.equal(migrations.length);
  });
});
