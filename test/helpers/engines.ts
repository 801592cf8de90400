import { randomBytes } from 'node:crypto';
import pg from 'pg';

export type TestEngine = 'pglite' | 'postgres';

/**
 * The engines every store-backed suite runs on: PGlite always, PostgreSQL when TEST_DATABASE_URL is set. In CI
 * (FILESIFT_REQUIRE_POSTGRES=1, set by .ci/run) a missing server is an error, never a silently skipped suite.
 */
export function testEngines(): TestEngine[] {
  const url = process.env.TEST_DATABASE_URL;
  if (!url && process.env.FILESIFT_REQUIRE_POSTGRES === '1') {
    throw new Error('FILESIFT_REQUIRE_POSTGRES=1 but TEST_DATABASE_URL is not set: the PostgreSQL suites cannot run');
  }
  return url ? ['pglite', 'postgres'] : ['pglite'];
}

/** Runs `suite` once per engine, inside a describe named after it. */
export function forEachEngine(title: string, suite: (engine: TestEngine) => void): void {
  for (const engine of testEngines()) {
    describe(`${title} [${engine}]`, () => suite(engine));
  }
}

export interface ScratchDatabase {
  url: string;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database on the TEST_DATABASE_URL server (or `adminUrl`'s: the benchmarks pass theirs), named
 * `<prefix>_<random>`, dropped afterwards: tests never share state.
 */
export async function createScratchDatabase(adminUrl = process.env.TEST_DATABASE_URL, prefix = 'filesift_test'): Promise<ScratchDatabase> {
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
