/**
 * Upkeep of the keyword index's blocks (sql/0007_keyword_blocks.sql): sealing the unsealed documents' postings
 * into blocks, a slice at a time, so that a bulk run's tail becomes blocks without one long statement.
 */
import type { SqlDatabase, SqlExecutor } from '../sql.js';

export interface SealProgress {
  /** Documents sealed by this call. */
  sealed: number;
  /** Documents still unsealed after it. */
  remaining: number;
  /** Time the store's thread spent on it, in ms (on the main thread the call also waits behind searches). */
  ms: number;
}

/** A timed slice seals this share of its documents first, and the rest only if that share kept to its time. */
const PROBE_SHARE = 4;

/**
 * Seals the `maxDocs` lowest unsealed documents, in one transaction. The slice was sized from earlier ones, and on
 * a loaded machine the same number of documents can take three times as long (bench:search's stall run: 573 ms
 * for a slice sized to 150 ms), all of it while searches wait. So with a `budgetMs` a quarter is sealed first and
 * the other three quarters only if the quarter took at most a quarter of the budget; otherwise the slice stops
 * there, short. Two statements, not one per quarter: each statement starts new blocks for every word it meets.
 */
export async function sealKeywordIndex(db: SqlDatabase, maxDocs: number, budgetMs = Infinity): Promise<SealProgress> {
  if (!Number.isSafeInteger(maxDocs) || maxDocs < 1) throw new RangeError(`bad slice size ${maxDocs}`);
  if (!(budgetMs > 0)) throw new RangeError(`bad time budget ${budgetMs}`);
  const started = performance.now();
  const seal = async (tx: SqlExecutor, n: number): Promise<number> =>
    (await tx.query<{ n: number }>('SELECT filesift_keyword_seal($1::integer) AS n', [n])).rows[0]?.n ?? 0;
  const progress = await db.transaction(async (tx) => {
    const probe = Number.isFinite(budgetMs) && maxDocs >= PROBE_SHARE ? Math.ceil(maxDocs / PROBE_SHARE) : maxDocs;
    let sealed = await seal(tx, probe);
    if (sealed === probe && probe < maxDocs && performance.now() - started <= budgetMs / PROBE_SHARE) sealed += await seal(tx, maxDocs - probe);
    const remaining =
      (await tx.query<{ n: number }>('SELECT count(*)::integer AS n FROM keyword_docs WHERE doc > (SELECT upto FROM keyword_seal)')).rows[0]?.n ?? 0;
    // Wholly sealed, the tail holds only dead rows: on PGlite (no autovacuum) TRUNCATE gives their space back at
    // once. Not on a server, where another connection's older snapshot might still read them; autovacuum does it.
    if (sealed > 0 && remaining === 0 && db.engine === 'pglite') await tx.exec('TRUNCATE keyword_tail');
    return { sealed, remaining };
  });
  return { ...progress, ms: performance.now() - started };
}
