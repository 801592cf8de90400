/**
 * Synthetic documents for scale tests: words drawn from a real corpus's unigram distribution, lengths from its
 * length distribution, with a seeded generator (same seed, same corpus). Not for quality, only for index size
 * and query cost at many files.
 */

/** mulberry32: small, fast, good enough for sampling. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SyntheticDoc {
  title: string;
  text: string;
}

/** Yields `count` documents sampled from `sources` (their words and their lengths in words). */
export function* syntheticDocs(sources: readonly string[], count: number, seed = 42): Generator<SyntheticDoc> {
  const words: string[] = [];
  const lengths: number[] = [];
  for (const text of sources) {
    const w = text.split(/\s+/).filter((x) => x !== '');
    words.push(...w);
    lengths.push(w.length);
  }
  if (words.length === 0) throw new Error('syntheticDocs needs non-empty sources');
  const random = seededRandom(seed);
  const pick = (): string => words[Math.floor(random() * words.length)]!;
  for (let i = 0; i < count; i++) {
    const length = Math.max(5, lengths[Math.floor(random() * lengths.length)]!);
    const title = Array.from({ length: 10 }, pick).join(' ');
    const body = Array.from({ length }, pick).join(' ');
    yield { title, text: `${title}\n\n${body}` };
  }
}
