/**
 * A long text's keyword index, written in slices (sql/0013_keyword_slices.sql): one statement used to run
 * PostgreSQL's parser over a whole text and write all its postings, ~1 s of PGlite's only thread for a
 * 2,000,000-character text while every search waited. A write of a long text now indexes at most
 * KEYWORD_SLICE_PIECES pieces (up to 16,000 bytes each: 16 take the parser ~50 ms on PGlite), stopping sooner
 * once KEYWORD_SLICE_MS have gone (sql/0022: a run of letters and digits without a space costs the parser
 * quadratic time, 615 ms a piece), and leaves the rest pending; search.continueKeywords adds the next slice, one
 * short statement per call, until the postings are written from all the pieces: the same postings as in one
 * statement.
 */
import type { SqlExecutor } from '../sql.js';

export const KEYWORD_SLICE_PIECES = 16;

/**
 * A slice stops after the piece that takes it past this many milliseconds (at least one piece a slice). Prose never
 * reaches it (16 pieces in ~50 ms); a slice of rustdoc's search index reached 4.3 s without it.
 */
export const KEYWORD_SLICE_MS = 100;

/** Texts longer than this (characters) may take more than one slice (16 pieces hold at least 128,000 bytes). */
export const KEYWORD_SLICED_FROM_CHARS = 32_000;

/**
 * Makes this transaction's keyword trigger index at most `pieces` pieces of a text (0: the whole text at once),
 * stopping after the piece that reaches `budgetMs` (0: after the first piece; the repositories pass KEYWORD_SLICE_MS
 * unless a test asks otherwise).
 */
export async function sliceKeywords(tx: SqlExecutor, pieces: number, budgetMs: number): Promise<void> {
  if (pieces > 0) await tx.exec(`SET LOCAL filesift.keyword_slice_pieces = ${Math.floor(pieces)}; ${sliceBudget(budgetMs)}`);
}

/** The statement that bounds this transaction's keyword slices to `budgetMs` milliseconds (sql/0022). */
export function sliceBudget(budgetMs: number): string {
  if (!(budgetMs >= 0) || !Number.isFinite(budgetMs)) throw new RangeError(`bad keyword slice budget ${budgetMs}`);
  return `SET LOCAL filesift.keyword_slice_ms = '${budgetMs}'`;
}
