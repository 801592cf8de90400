/**
 * A long text's keyword index, written in slices (sql/0013_keyword_slices.sql): one statement used to run
 * PostgreSQL's parser over a whole text and write all its postings, ~1 s of PGlite's only thread for a
 * 2,000,000-character text while every search waited. A write of a long text now indexes at most
 * KEYWORD_SLICE_PIECES pieces (up to 16,000 bytes each: 16 take the parser ~50 ms on PGlite) and leaves the rest
 * pending; search.continueKeywords adds the next slice, one short statement per call, until the postings are
 * written from all the pieces: the same postings as in one statement.
 */
import type { SqlExecutor } from '../sql.js';

export const KEYWORD_SLICE_PIECES = 16;

/** Texts longer than this (characters) may take more than one slice (16 pieces hold at least 128,000 bytes). */
export const KEYWORD_SLICED_FROM_CHARS = 32_000;

/** Makes this transaction's keyword trigger index at most `pieces` pieces of a text (0: the whole text at once). */
export async function sliceKeywords(tx: SqlExecutor, pieces: number): Promise<void> {
  if (pieces > 0) await tx.query(`SET LOCAL filesift.keyword_slice_pieces = ${Math.floor(pieces)}`);
}
