/**
 * Upkeep of the keyword index's blocks (sql/0007_keyword_blocks.sql): sealing the unsealed documents' postings
 * into blocks, a slice at a time, so that a bulk run's tail becomes blocks without one long statement.
 */
import type { SqlDatabase } from '../sql.js';

export interface SealProgress {
  /** Documents sealed by this call. */
  sealed: number;
  /** Documents still unsealed after it. */
  remaining: number;
  /** Time the store's thread spent on it, in ms (on the main thread the call also waits behind searches). */
  ms: number;
}

/** Seals the `maxDocs` lowest unsealed documents, in one transaction (the seal function is one statement). */
export async function sealKeywordIndex(db: SqlDatabase, maxDocs: number): Promise<SealProgress> {
  if (!Number.isSafeInteger(maxDocs) || maxDocs < 1) throw new RangeError(`bad slice size ${maxDocs}`);
  const started = performance.now();
  const progress = await db.transaction(async (tx) => {
    const sealed = (await tx.query<{ n: number }>('SELECT filesift_keyword_seal($1::integer) AS n', [maxDocs])).rows[0]?.n ?? 0;
    const remaining =
      (await tx.query<{ n: number }>('SELECT count(*)::integer AS n FROM keyword_docs WHERE doc > (SELECT upto FROM keyword_seal)')).rows[0]?.n ?? 0;
    // Wholly sealed, the tail holds only dead rows: on PGlite (no autovacuum) TRUNCATE gives their space back at
    // once. Not on a server, where another connection's older snapshot might still read them; autovacuum does it.
    if (sealed > 0 && remaining === 0 && db.engine === 'pglite') await tx.exec('TRUNCATE keyword_tail');
    return { sealed, remaining };
  });
  return { ...progress, ms: performance.now() - started };
}
