import type { SqlDatabase } from '../sql.js';

export interface HealthRepository {
  /** A real round trip to the database: its server version and current schema version. */
  ping(): Promise<{ serverVersion: string; schemaVersion: number }>;
}

export function createHealthRepository(db: SqlDatabase): HealthRepository {
  return {
    async ping() {
      const { rows } = await db.query<{ server_version: string; schema_version: number | null }>(
        `SELECT current_setting('server_version') AS server_version,
                (SELECT max(version) FROM schema_migrations) AS schema_version`,
      );
      return { serverVersion: rows[0]?.server_version ?? 'unknown', schemaVersion: rows[0]?.schema_version ?? 0 };
    },
  };
}
