/**
 * Typo tolerance, beside the keyword statement: each word of a query that no file contains is matched to the
 * words one edit away from it (a letter deleted, inserted, replaced, or two neighbours swapped: Damerau distance
 * 1, which covers most typing mistakes) that the keyword index holds. One statement, inside the database:
 *
 *   0. nothing more when the index holds every lexeme of the text (most queries: ts_debug alone costs more than
 *      the probes, ~1.6 against ~0.6 ms on PGlite);
 *   1. the query's words and their lexemes, read as the keyword index reads them (ts_debug: same parser,
 *      stemmer and stop words); words under MIN_LENGTH letters are left alone (too many real words are one
 *      edit apart), and so are words over MAX_LENGTH (see there);
 *   2. those whose lexeme no posting holds, in the tail or in a sealed block (an index probe each; a word of a
 *      departed document lingers in its block until compaction: harmless for a suggestion);
 *   3. every one-edit variant of such a word (about 54 per letter), stemmed by the index's stemmer, kept when
 *      some file holds its lexeme;
 *   4. per word the variant whose lexeme the most files hold (ties: the same length as typed, then alphabetical).
 *
 * Why not trigrams over a lexicon of stems (pg_trgm): measured on SciFact, the stems of a misspelt word and of
 * the word meant diverge ("defciency" stems to defcienc, "deficiency" to defici), so the nearest stems were
 * wrong ("defenc"), and the GiST lookup cost 20–90 ms; variants of the word as typed are real words, which is
 * also what "did you mean" shows, and need no extra table or index to maintain while indexing.
 */
import { SqlParams, type SqlStatement } from '../queries/params.js';
import { KEYWORD_TS_CONFIG } from './query.js';

/** A query word no file contains, and the word one edit away that replaces it. */
export interface CorrectionRow {
  /** The word as typed, lower-cased. */
  word: string;
  /** The word meant: a one-edit variant of `word` that some file holds. */
  replacement: string;
  /** Its lexeme (stem), as the keyword index holds it. */
  lexeme: string;
  /** Files holding that lexeme (counted up to DF_CAP). */
  df: number;
}

/** Shortest word corrected. */
export const MIN_LENGTH = 4;
/**
 * Longest word corrected. A word of n letters has ~54n one-edit variants, each as long as the word, each stemmed
 * and looked up: the cost grows with n², and on PGlite's one thread a query of one 1,000-letter word (a DNA
 * sequence, a run of letters pasted from a log) held every other search and write for 7 s, eight words of 300
 * letters for 7.3 s. Words people type stay well under this; what is longer is taken as typed.
 */
export const MAX_LENGTH = 32;
/** Unknown words of one query looked up at most (the longest first): bounds the work of a pasted paragraph. */
const MAX_WORDS = 8;
/** Files counted per suggestion at most: enough to rank suggestions, bounded for very common words. */
const DF_CAP = 10_000;
/** Some posting holds the lexeme `column`: in the tail (recent documents) or in a sealed block (store/keyword/). */
const held = (column: string): string =>
  `(EXISTS (SELECT 1 FROM keyword_tail x WHERE x.lexeme = ${column}) OR EXISTS (SELECT 1 FROM keyword_blocks x WHERE x.lexeme = ${column}))`;
const LETTERS = `'{${'abcdefghijklmnopqrstuvwxyz'.split('').join(',')}}'::text[]`;

export function buildCorrectionQuery(text: string): SqlStatement | null {
  if (text.trim() === '') return null;
  const params = new SqlParams();
  const t = params.add(text, 'text');
  const sql = `
WITH words AS (
  SELECT DISTINCT lower(d.token) AS word, d.lexemes[1] AS lexeme
  FROM ts_debug('${KEYWORD_TS_CONFIG}', ${t}) AS d
  WHERE d.alias IN ('asciiword', 'word', 'hword_asciipart', 'hword_part') AND cardinality(d.lexemes) = 1
    AND char_length(d.token) BETWEEN ${MIN_LENGTH} AND ${MAX_LENGTH}
    -- A one-time gate: when the index holds every lexeme of the text (most queries), ts_debug (slow) never runs.
    AND EXISTS (SELECT 1 FROM unnest(to_tsvector('${KEYWORD_TS_CONFIG}', ${t})) AS q WHERE NOT ${held('q.lexeme')})
),
unknown AS (
  SELECT w.word, char_length(w.word) AS n
  FROM words w
  WHERE NOT ${held('w.lexeme')}
  ORDER BY char_length(w.word) DESC, w.word
  LIMIT ${MAX_WORDS}
),
variants AS (
  SELECT DISTINCT u.word, v.variant
  FROM unknown u
  CROSS JOIN LATERAL (
    SELECT left(u.word, i - 1) || substr(u.word, i + 1) FROM generate_series(1, u.n) AS i
    UNION ALL
    SELECT left(u.word, i - 1) || substr(u.word, i + 1, 1) || substr(u.word, i, 1) || substr(u.word, i + 2)
    FROM generate_series(1, u.n - 1) AS i
    UNION ALL
    SELECT left(u.word, i - 1) || c || substr(u.word, i + 1) FROM generate_series(1, u.n) AS i, unnest(${LETTERS}) AS c
    UNION ALL
    SELECT left(u.word, i) || c || substr(u.word, i + 1) FROM generate_series(0, u.n) AS i, unnest(${LETTERS}) AS c
  ) AS v (variant)
  WHERE v.variant <> u.word
),
stemmed AS (
  SELECT v.word, v.variant, s.lexeme
  FROM variants v
  CROSS JOIN LATERAL (SELECT tsvector_to_array(to_tsvector('${KEYWORD_TS_CONFIG}', v.variant)) AS lexemes) AS a
  CROSS JOIN LATERAL (SELECT a.lexemes[1] AS lexeme) AS s
  WHERE cardinality(a.lexemes) = 1
),
held AS (
  SELECT s.word, s.variant, s.lexeme,
         ((SELECT count(*) FROM (SELECT 1 FROM keyword_tail x WHERE x.lexeme = s.lexeme LIMIT ${DF_CAP}) AS c)
          + (SELECT coalesce(sum(b.n), 0) FROM (SELECT n FROM keyword_blocks x WHERE x.lexeme = s.lexeme LIMIT ${Math.ceil(DF_CAP / 128)}) AS b))::integer AS df
  FROM stemmed s
  WHERE ${held('s.lexeme')}
)
SELECT DISTINCT ON (h.word) h.word, h.variant AS replacement, h.lexeme, h.df
FROM held h
ORDER BY h.word, h.df DESC, abs(char_length(h.variant) - char_length(h.word)), h.variant`;
  return { text: sql, params: params.values };
}
