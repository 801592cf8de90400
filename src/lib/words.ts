/**
 * The longest word any per-word text work (stemming, lemmatising, tagging) is given. Porter2 as wink implements it
 * runs regular expressions that are quadratic in the word's length: one 50,000-character "word" took 35 s to
 * stem, one of 19,000 characters stalled a search for 6 s. No word of any language comes near 64 characters;
 * longer runs are identifiers, hashes, base64 or an attack, and lose nothing by being cut (analysis) or left
 * unstemmed (snippets).
 */
export const MAX_WORD_CHARS = 64;

/**
 * A run too long, matched only where a run starts: without the lookbehind the search tried the run's length again
 * from every character of every word (160 µs against 66 a text of the Debian fifth; the same matches, since a
 * greedy match always starts a run and takes it whole).
 */
const LONG_RUN = new RegExp(`(?<!\\S)\\S{${MAX_WORD_CHARS + 1},}`, 'g');

/** The text with every run of non-space characters longer than MAX_WORD_CHARS cut to that length. */
export function capWords(text: string): string {
  return text.replace(LONG_RUN, (run) => run.slice(0, MAX_WORD_CHARS));
}
