/**
 * Reads a user's search text into free terms, "quoted phrases" and -excluded terms or -"phrases".
 *
 * Nothing here ever reaches tsquery syntax: the pieces go to the database as bound parameters and only through
 * to_tsvector / phraseto_tsquery, which read plain text. So `& | ! : * ( ) < > ' \` are ordinary characters
 * (the text search parser drops them), and no input can make the query fail.
 *
 * Rules:
 * - whitespace separates; a word is everything up to whitespace or a double quote;
 * - "..." is a phrase (typographic quotes count as "); an unbalanced quote is ignored;
 * - a leading - (after whitespace or at the start) excludes the following word or phrase; a - inside a word
 *   (covid-19, e-mail) or before a digit (-2, a negative number or a list like "E2f-1, -2, -3") is part of
 *   the word; a lone - is ignored;
 * - at most MAX_PHRASES phrases are enforced; further ones count as plain terms (their words still rank);
 * - at most MAX_EXCLUDED words or phrases may be excluded: the search service refuses a query with more.
 */

import type { ParsedQuery } from '../store/queries/parsed-query.js';

export const MAX_PHRASES = 8;
/**
 * Exclusions a query may hold. Each is checked on every candidate that could make the results, and where they
 * leave few (common words excluded) that is most of the collection: at 100k files, 8 exclusions took 0.2-0.65 s,
 * 50 took 1.7-5.9 s on PGlite's one thread while every other search waited. Unlike a ninth phrase (its words still
 * rank as terms), an exclusion has nothing to fall back to, so a query with more is refused rather than half-obeyed.
 */
export const MAX_EXCLUDED = 8;


const QUOTES = /[\u201c\u201d\u201e\u201f\u00ab\u00bb\u2033\uff02]/g;
// NUL cannot be stored in a PostgreSQL text value; other control characters are just separators here.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/g;
const SPACE = /\s/;

function collapse(text: string): string {
  return text.trim().replace(/\s+/g, ' ');
}

export function parseSearchQuery(input: string): ParsedQuery {
  const s = input.normalize('NFC').replace(CONTROL, ' ').replace(QUOTES, '"');
  const terms: string[] = [];
  const phrases: string[] = [];
  const excluded: string[] = [];
  const positive: string[] = [];

  let i = 0;
  while (i < s.length) {
    const c = s[i] as string;
    if (SPACE.test(c)) {
      i++;
      continue;
    }
    let negated = false;
    if (c === '-') {
      const next = s[i + 1];
      if (next === undefined || SPACE.test(next)) {
        i++; // a lone '-'
        continue;
      }
      // '-2', '-3.5': a number (a list 'E2f-1, -2, -3', a negative value), not an exclusion
      if (!/[0-9]/.test(next)) {
        negated = true;
        i++;
      }
    }
    if (s[i] === '"') {
      const close = s.indexOf('"', i + 1);
      if (close < 0) {
        i++; // unbalanced: drop the quote, read on as words (a pending '-' applies to the next word)
        if (negated) i = readWord(s, i, excluded);
        continue;
      }
      const phrase = collapse(s.slice(i + 1, close));
      i = close + 1;
      if (phrase === '') continue;
      if (negated) excluded.push(phrase);
      else {
        if (phrases.length < MAX_PHRASES) phrases.push(phrase);
        else terms.push(phrase);
        positive.push(phrase);
      }
      continue;
    }
    const start = i;
    i = readWord(s, i, negated ? excluded : terms);
    if (!negated) positive.push(s.slice(start, i));
  }

  const rankText = positive.join(' ');
  return { terms, phrases, excluded, rankText, nameKey: rankText === '' ? null : rankText.toLowerCase() };
}

/** Reads one word from `start` into `into`; answers the index after it. */
function readWord(s: string, start: number, into: string[]): number {
  let j = start;
  while (j < s.length && !SPACE.test(s[j] as string) && s[j] !== '"') j++;
  if (j > start) into.push(s.slice(start, j));
  return j;
}
