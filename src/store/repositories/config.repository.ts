import type { SqlDatabase } from '../sql.js';

/** Durable key/value configuration (settings by dotted key, filter configuration as one document). */
export interface ConfigRepository {
  /** Every stored entry whose key starts with prefix (all entries when prefix is ''). */
  load(prefix: string): Promise<Record<string, unknown>>;
  /** Upserts all entries in one transaction: either every value is stored or none is. */
  save(entries: Record<string, unknown>): Promise<void>;
  /** Deletes entries by key, in one transaction. */
  remove(keys: string[]): Promise<void>;
}

export function createConfigRepository(db: SqlDatabase): ConfigRepository {
  return {
    async load(prefix) {
      const { rows } = await db.query<{ key: string; value: unknown }>(
        `SELECT key, value FROM app_config WHERE starts_with(key, $1) ORDER BY key`,
        [prefix],
      );
      return Object.fromEntries(rows.map((r) => [r.key, r.value]));
    },
    async save(entries) {
      const keys = Object.keys(entries);
      if (keys.length === 0) return;
      await db.transaction(async (tx) => {
        for (const key of keys) {
          await tx.query(
            `INSERT INTO app_config (key, value, updated_at) VALUES ($1, $2::jsonb, now())
             ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
            [key, JSON.stringify(entries[key])],
          );
        }
      });
    },
    async remove(keys) {
      if (keys.length === 0) return;
      await db.query(`DELETE FROM app_config WHERE key = ANY($1::text[])`, [keys]);
    },
  };
}
