/**
 * Typo tolerance, beside the keyword statement: each word of a query that no file contains is matched to the
 * words one edit away from it (a letter deleted, inserted, replaced, or two neighbours swapped: Damerau distance
 * 1, which covers most typing mistakes) that the keyword index holds. Two statements, in the caller's transaction:
 *
 *   words (buildUnknownWordsQuery)
 *     0. nothing more when the index holds every lexeme of the text (most queries: the parse costs more than
 *        the probes);
 *     1. the query's words and their lexemes, read as the keyword index reads them (its parser's tokens and its
 *        stemmer, stop words included: KEYWORD_STEMMER); words under MIN_LENGTH letters are left alone (too many
 *        real words are one edit apart), and so are words over MAX_LENGTH (see there);
 *     2. those whose lexeme no posting holds, in the tail or in a sealed block (an index probe each; a word of a
 *        departed document lingers in its block until compaction: harmless for a suggestion);
 *   variants (oneEditVariants, here, then buildVariantsQuery)
 *     3. every one-edit variant of such a word (about 54 per letter), stemmed by the index's stemmer, kept when
 *        some file holds its lexeme;
 *     4. per word the variant whose lexeme the most files hold (ties: the same length as typed, then alphabetical);
 *     5. of that lexeme's variants, one written in a file that holds the lexeme goes first: a stem is shared by
 *        misspellings ('microenviroment' is one edit from 'microenvironment' and from 'microenvironent', both
 *        stemmed to microenviron), and the notice shows the word chosen. The lexeme searched is step 4's, so
 *        keyword answers are unchanged; a hybrid search embeds the query as now spelt (SciFact: 230 of 300
 *        misspelt words shown as they were meant, against 222, the same nDCG@10 within 0.0002).
 *
 * The variants are spelt out here, not in SQL: built with generate_series and substr() inside the statement they
 * cost PGlite ~2 ms a query with an unknown word (of ~7), and each was stemmed by to_tsvector(), whose parser
 * has nothing to do for a run of letters; ts_lexize() on the configuration's stemmer gives the same lexeme (a
 * variant is letters only, which the parser reads as one asciiword or word token, both mapped to english_stem).
 * Measured on the 5k ladder rung, the 300 SciFact test queries, both forms prepared: 1.68 CPU ms a query on
 * average in one statement, 1.18 in two, the same corrections for every query (docs/benchmarks/search-latency.md).
 *
 * Why not trigrams over a lexicon of stems (pg_trgm): measured on SciFact, the stems of a misspelt word and of
 * the word meant diverge ("defciency" stems to defcienc, "deficiency" to defici), so the nearest stems were
 * wrong ("defenc"), and the GiST lookup cost 20–90 ms; variants of the word as typed are real words, which is
 * also what "did you mean" shows, and need no extra table or index to maintain while indexing.
 */
import { SqlParams, type SqlStatement } from '../queries/params.js';
import type { SqlExecutor } from '../sql.js';
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
/** Files holding a lexeme whose text is looked at for a spelling of it (step 5), from the tail and from the blocks
 * each, and how much of each text: bounds the check to a few regular-expression scans of 50 KB. */
const SPELLING_FILES = 2;
const SPELLING_CHARS = 50_000;
/** Some posting holds the lexeme `column`: in the tail (recent documents) or in a sealed block (store/keyword/). */
const held = (column: string): string =>
  `(EXISTS (SELECT 1 FROM keyword_tail x WHERE x.lexeme = ${column}) OR EXISTS (SELECT 1 FROM keyword_blocks x WHERE x.lexeme = ${column}))`;
/**
 * The dictionary KEYWORD_TS_CONFIG maps words to (sql/0006: a copy of pg_catalog.english), and its parser. The
 * configuration maps each of the four kinds of word read here to this one dictionary, so a word's lexeme is its
 * ts_lexize(): what ts_debug() answers, at a quarter of its cost (a SQL function joining the catalogs for every
 * token: 0.71–0.77 against 0.17–0.21 CPU ms for a SciFact query on PGlite, the same rows for all 1,109 SciFact
 * queries; the test compares the two).
 */
export const KEYWORD_STEMMER = 'english_stem';
export const KEYWORD_PARSER = 'default';

/** The words of `text` worth correcting: no file holds their lexeme; longest first, at most MAX_WORDS. */
export function buildUnknownWordsQuery(text: string): SqlStatement | null {
  if (text.trim() === '') return null;
  const params = new SqlParams();
  const t = params.add(text, 'text');
  const sql = `
SELECT w.word
FROM (
  SELECT DISTINCT lower(p.token) AS word, l.lexemes[1] AS lexeme
  FROM ts_parse('${KEYWORD_PARSER}', ${t}) AS p
  JOIN ts_token_type('${KEYWORD_PARSER}') AS k ON k.tokid = p.tokid
  CROSS JOIN LATERAL (SELECT ts_lexize('${KEYWORD_STEMMER}', p.token) AS lexemes) AS l
  WHERE k.alias IN ('asciiword', 'word', 'hword_asciipart', 'hword_part') AND cardinality(l.lexemes) = 1
    AND char_length(p.token) BETWEEN ${MIN_LENGTH} AND ${MAX_LENGTH}
    -- A one-time gate: when the index holds every lexeme of the text (most queries), the parse never runs.
    AND EXISTS (SELECT 1 FROM unnest(to_tsvector('${KEYWORD_TS_CONFIG}', ${t})) AS q WHERE NOT ${held('q.lexeme')})
) AS w
WHERE NOT ${held('w.lexeme')}
ORDER BY char_length(w.word) DESC, w.word
LIMIT ${MAX_WORDS}`;
  return { text: sql, params: params.values };
}

const ALPHABET = [...'abcdefghijklmnopqrstuvwxyz'];

/**
 * Every word one edit from `word` (a letter deleted, two neighbours swapped, a letter of a-z put in place of one
 * or inserted), without `word` itself and without repeats. Letters are code points, as PostgreSQL counts them.
 */
export function oneEditVariants(word: string): string[] {
  const letters = [...word];
  const n = letters.length;
  const part = (from: number, to?: number): string => letters.slice(from, to).join('');
  const out = new Set<string>();
  for (let i = 0; i < n; i++) out.add(part(0, i) + part(i + 1));
  for (let i = 0; i < n - 1; i++) out.add(part(0, i) + letters[i + 1]! + letters[i]! + part(i + 2));
  for (let i = 0; i < n; i++) for (const c of ALPHABET) out.add(part(0, i) + c + part(i + 1));
  for (let i = 0; i <= n; i++) for (const c of ALPHABET) out.add(part(0, i) + c + part(i));
  out.delete(word);
  return [...out];
}

/** Per word, its best variant that some file holds (none for a word without one). */
export function buildVariantsQuery(words: readonly string[]): SqlStatement | null {
  const typed: string[] = [];
  const variants: string[] = [];
  for (const word of words) {
    for (const variant of oneEditVariants(word)) {
      typed.push(word);
      variants.push(variant);
    }
  }
  if (variants.length === 0) return null;
  const params = new SqlParams();
  const w = params.add(typed, 'text[]');
  const v = params.add(variants, 'text[]');
  const sql = `
WITH stemmed AS (
  SELECT v.word, v.variant, a.lexemes[1] AS lexeme
  FROM unnest(${w}, ${v}) AS v (word, variant)
  CROSS JOIN LATERAL (SELECT ts_lexize('${KEYWORD_STEMMER}', v.variant) AS lexemes) AS a
  WHERE cardinality(a.lexemes) = 1
),
held AS (
  SELECT s.word, s.variant, s.lexeme,
         ((SELECT count(*) FROM (SELECT 1 FROM keyword_tail x WHERE x.lexeme = s.lexeme LIMIT ${DF_CAP}) AS c)
          + (SELECT coalesce(sum(b.n), 0) FROM (SELECT n FROM keyword_blocks x WHERE x.lexeme = s.lexeme LIMIT ${Math.ceil(DF_CAP / 128)}) AS b))::integer AS df
  FROM stemmed s
  WHERE ${held('s.lexeme')}
),
best AS (
  SELECT DISTINCT ON (h.word) h.word, h.lexeme
  FROM held h
  ORDER BY h.word, h.df DESC, abs(char_length(h.variant) - char_length(h.word)), h.variant
),
spellings AS (
  SELECT h.*, count(*) OVER (PARTITION BY h.word) AS n
  FROM held h JOIN best b ON b.word = h.word AND b.lexeme = h.lexeme
)
SELECT DISTINCT ON (s.word) s.word, s.variant AS replacement, s.lexeme, s.df
FROM spellings s
ORDER BY s.word,
         -- Step 5, where the lexeme has more than one spelling among the variants (letters only: a pattern).
         CASE WHEN s.n > 1 AND s.variant ~ '^[[:alpha:]]+$' THEN EXISTS (
           SELECT 1
           FROM ((SELECT x.doc FROM keyword_tail x WHERE x.lexeme = s.lexeme LIMIT ${SPELLING_FILES})
                 UNION ALL
                 (SELECT x.first_doc FROM keyword_blocks x WHERE x.lexeme = s.lexeme LIMIT ${SPELLING_FILES})) AS c (doc)
           JOIN keyword_docs d ON d.doc = c.doc
           JOIN files f ON f.id = d.file_id
           WHERE (f.title || ' ' || f.filename || ' ' || left(f.content, ${SPELLING_CHARS})) ~* ('\\m' || s.variant)
         ) ELSE false END DESC,
         abs(char_length(s.variant) - char_length(s.word)), s.variant`;
  return { text: sql, params: params.values };
}

/**
 * The corrections of `text`'s unknown words: both statements, in `tx`. The caller turns sequential scans off for
 * the transaction (hundreds of probes by lexeme must use the indexes whatever the statistics say).
 */
export async function findCorrections(tx: SqlExecutor, text: string): Promise<CorrectionRow[]> {
  const unknown = buildUnknownWordsQuery(text);
  if (!unknown) return [];
  const words = (await tx.query<{ word: string }>(unknown.text, unknown.params, { prepare: true })).rows.map((r) => r.word);
  const variants = buildVariantsQuery(words);
  if (!variants) return [];
  return (await tx.query<CorrectionRow>(variants.text, variants.params, { prepare: true })).rows;
}
