/**
 * Misspelt queries for the typo run of bench:quality: in each query, its rarest word (the fewest documents
 * contain it, among words of at least 4 letters that some document contains) gets one seeded single-letter edit:
 * a letter deleted, inserted or replaced. The rarest word is the one a query can least afford to lose. Pure and
 * seeded: the same queries and documents always give the same typos.
 */
import { seededRandom } from '../../scripts/lib/seeded-random.js';

const WORD = /[A-Za-z]+/g;
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

export interface Typo {
  /** The query with the edit. */
  text: string;
  /** The word as it was, and as it is now (lower case). */
  word: string;
  typo: string;
}

/** Document frequency of each lower-case word of at least 4 letters. */
export function wordFrequencies(docs: Iterable<string>): Map<string, number> {
  const df = new Map<string, number>();
  for (const doc of docs) {
    for (const w of new Set((doc.toLowerCase().match(WORD) ?? []).filter((x) => x.length >= 4))) df.set(w, (df.get(w) ?? 0) + 1);
  }
  return df;
}

/** One single-letter edit of `word` (never the word itself). */
export function editWord(word: string, random: () => number): string {
  const pick = (n: number): number => Math.floor(random() * n);
  for (;;) {
    const op = pick(3);
    const at = pick(word.length);
    const letter = LETTERS[pick(LETTERS.length)]!;
    const edited =
      op === 0 ? word.slice(0, at) + word.slice(at + 1) : op === 1 ? word.slice(0, at) + letter + word.slice(at) : word.slice(0, at) + letter + word.slice(at + 1);
    if (edited !== word) return edited;
  }
}

/** The query with its rarest word misspelt; null when it has no word of 4+ letters that a document contains. */
export function misspell(query: string, df: ReadonlyMap<string, number>, seed: number): Typo | null {
  let rarest: { word: string; at: number; df: number } | null = null;
  for (const m of query.matchAll(WORD)) {
    const lower = m[0].toLowerCase();
    const n = df.get(lower) ?? 0;
    if (lower.length < 4 || n === 0) continue;
    if (!rarest || n < rarest.df) rarest = { word: m[0], at: m.index, df: n };
  }
  if (!rarest) return null;
  const typo = editWord(rarest.word.toLowerCase(), seededRandom(seed));
  return { text: query.slice(0, rarest.at) + typo + query.slice(rarest.at + rarest.word.length), word: rarest.word.toLowerCase(), typo };
}
