/**
 * Typo tolerance on the search side: the store names each query word no file contains and the word one edit away
 * that replaces it (store/keyword/lexicon.ts); here the replacements are written into the query text, for
 * `did_you_mean` and, under the measured rule below, for the search itself. Pure.
 */
import type { CorrectionRow } from '../store/keyword/lexicon.js';

/** What a search does with misspelt words: search the corrected words too, only suggest them, or neither. */
export const TYPO_CORRECTION_MODES = ['search', 'suggest', 'off'] as const;
export type TypoCorrectionMode = (typeof TYPO_CORRECTION_MODES)[number];

export type Correction = Pick<CorrectionRow, 'word' | 'replacement' | 'df'>;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The text with each corrected word replaced, as a whole word, ignoring case; a word written as an exclusion
 * (`-word`) is left as typed. Hyphenated parts (anti-inflamatory) are replaced like words.
 */
export function applyCorrections(text: string, corrections: readonly Correction[]): string {
  let out = text;
  for (const c of corrections) {
    const word = new RegExp(`(?<![\\p{L}\\p{N}])(?<!(?:^|\\s)-)${escapeRegExp(c.word)}(?![\\p{L}\\p{N}])`, 'giu');
    out = out.replace(word, c.replacement);
  }
  return out;
}

/**
 * Whether the corrected words also search (the misspelt word matches no file, so searching it alone finds
 * nothing there). Measured on SciFact test (bench/search-quality.ts, typo run): see the README's Search quality.
 */
export function searchesCorrections(mode: TypoCorrectionMode, corrections: readonly Correction[]): boolean {
  return mode === 'search' && corrections.length > 0;
}

/** The notice of an answer that searched the corrected words. */
export function correctionNotice(corrections: readonly Correction[], corrected: string): string {
  const words = corrections.map((c) => `'${c.word}'`).join(', ');
  return `No file contains ${words}: showing results for '${corrected}'`;
}
