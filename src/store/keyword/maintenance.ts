/**
 * Upkeep of the keyword index's blocks (sql/0007_keyword_blocks.sql): sealing the unsealed documents' postings
 * into blocks, a slice at a time, so that a bulk run's tail becomes blocks without one long statement.
 */
import type { SqlDatabase, SqlExecutor } from '../sql.js';

export interface SealProgress {
  /** Documents wholly sealed by this call. */
  sealed: number;
  /** Postings moved from the tail into blocks by this call. */
  postings: number;
  /**
   * Whether the call sealed (part of) a large document, alone: its words are sealed `LARGE_DOCUMENT_POSTINGS` a
   * call, so its time says nothing of the rate at which documents seal.
   */
  large: boolean;
  /** Documents still unsealed after it. */
  remaining: number;
  /** Time the store's thread spent on it, in ms (on the main thread the call also waits behind searches). */
  ms: number;
}

/** A timed slice seals this share of its documents first, and the rest only if that share kept to its time. */
const PROBE_SHARE = 4;

/**
 * A document with more distinct words than this is sealed alone, this many of its words a call (sql/0019): a
 * 2,000,000-character text has up to ~40,000, each a block row of its own, and sealed whole it held PGlite's thread
 * for 1.6 s. 12–50 µs a word on this kind of machine (more as the index grows): ~100–450 ms a call. Lower bounds
 * each call tighter but cuts more slices short before such documents (on /usr/share/doc, 174 of 4,794 files have
 * more than 4,096 distinct words (raw, before stemming), 58 more than 8,192, 6 more than 16,384). The same bound
 * cuts a long text's postings into parts as they are written (sql/0020, search.continueKeywords).
 */
export const LARGE_DOCUMENT_POSTINGS = 8192;

/** No bound on a slice's postings beyond its documents' (the SQL function's integer). */
export const MAX_SLICE_POSTINGS = 2_147_483_647;

/**
 * Seals the `maxDocs` lowest unsealed documents, in one transaction. The slice was sized from earlier ones, and on
 * a loaded machine the same number of documents can take three times as long (bench:search's stall run: 573 ms
 * for a slice sized to 150 ms), all of it while searches wait. So with a `budgetMs` a quarter is sealed first and
 * the other three quarters only if the quarter took at most a quarter of the budget; otherwise the slice stops
 * there, short. Two statements, not one per quarter: each statement starts new blocks for every word it meets.
 * A slice stops before a large document (more than `largePostings` words); one that starts at it seals only
 * `largePostings` of its words, whatever `maxDocs` says. With `slicePostings` it also stops before the document that
 * would take its postings past that many (at least one document a call; sql/0023): a slice's time is its postings',
 * so a count of documents sized on small files runs long when larger ones follow (18 s once on a home
 * directory's tenth, stop 64).
 */
export async function sealKeywordIndex(
  db: SqlDatabase,
  maxDocs: number,
  budgetMs = Infinity,
  largePostings = LARGE_DOCUMENT_POSTINGS,
  slicePostings = MAX_SLICE_POSTINGS,
): Promise<SealProgress> {
  if (!Number.isSafeInteger(maxDocs) || maxDocs < 1) throw new RangeError(`bad slice size ${maxDocs}`);
  if (!(budgetMs > 0)) throw new RangeError(`bad time budget ${budgetMs}`);
  if (!Number.isSafeInteger(largePostings) || largePostings < 1) throw new RangeError(`bad large-document slice ${largePostings}`);
  if (!Number.isSafeInteger(slicePostings) || slicePostings < 1 || slicePostings > MAX_SLICE_POSTINGS) {
    throw new RangeError(`bad slice postings ${slicePostings}`);
  }
  const started = performance.now();
  type Sealed = { docs: number; postings: number; large: boolean; cut: boolean };
  const seal = async (tx: SqlExecutor, docs: number, postingsBound: number): Promise<Sealed> => {
    const row = (await tx.query<Sealed>(
      'SELECT docs_sealed AS docs, postings_moved AS postings, large_document AS large, cut_by_postings AS cut FROM filesift_keyword_seal($1::integer, $2::integer, $3::integer)',
      [docs, largePostings, postingsBound],
    )).rows[0];
    return { docs: row?.docs ?? 0, postings: row?.postings ?? 0, large: row?.large ?? false, cut: row?.cut ?? false };
  };
  const progress = await db.transaction(async (tx) => {
    const probing = Number.isFinite(budgetMs) && maxDocs >= PROBE_SHARE;
    const probe = probing ? Math.ceil(maxDocs / PROBE_SHARE) : maxDocs;
    const probePostings = probing ? Math.ceil(slicePostings / PROBE_SHARE) : slicePostings;
    const first = await seal(tx, probe, probePostings);
    let { docs: sealed, postings, large } = first;
    // The rest only after a probe that used its whole share, of documents or of postings, within its time.
    if (!large && probing && (sealed === probe || first.cut) && performance.now() - started <= budgetMs / PROBE_SHARE) {
      const rest = await seal(tx, maxDocs - sealed, Math.max(1, slicePostings - postings));
      sealed += rest.docs;
      postings += rest.postings;
      large = rest.large;
    }
    const remaining =
      (await tx.query<{ n: number }>('SELECT count(*)::integer AS n FROM keyword_docs WHERE doc > (SELECT upto FROM keyword_seal)')).rows[0]?.n ?? 0;
    // Wholly sealed, the tail holds only dead rows: on PGlite (no autovacuum) TRUNCATE gives their space back at
    // once. Not on a server, where another connection's older snapshot might still read them; autovacuum does it.
    if (sealed > 0 && remaining === 0 && db.engine === 'pglite') await tx.exec('TRUNCATE keyword_tail');
    return { sealed, postings, large, remaining };
  });
  return { ...progress, ms: performance.now() - started };
}
