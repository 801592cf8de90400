/**
 * Synthetic documents for scale tests: words drawn from a real corpus's unigram distribution, lengths from its
 * length distribution, with a seeded generator (same seed, same corpus). Not for quality, only for index size
 * and query cost at many files.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { seededRandom } from '../../scripts/lib/seeded-random.js';

export { seededRandom };

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

export interface SyntheticTree {
  /** The folder holding the files (<root>/files/<k>/<n>.txt, 1,000 files a folder). */
  files: string;
  count: number;
  /** False when an earlier run had written the same tree there (same count and seed) and it was reused. */
  written: boolean;
}

/**
 * Writes `count` synthetic .txt files under `root`/files, or reuses them when `root`/complete.json says an earlier
 * call finished the same tree (a kept --scale-dir makes re-runs skip the writing). The marker sits outside the
 * indexed folder so it is never indexed itself.
 */
export async function writeSyntheticTree(root: string, sources: readonly string[], count: number, seed = 42): Promise<SyntheticTree> {
  const files = path.join(root, 'files');
  const marker = path.join(root, 'complete.json');
  const wanted = JSON.stringify({ count, seed });
  if ((await readFile(marker, 'utf8').catch(() => null)) === wanted) return { files, count, written: false };
  await rm(files, { recursive: true, force: true });
  await rm(marker, { force: true });
  let pending: Promise<void>[] = [];
  let n = 0;
  for (const doc of syntheticDocs(sources, count, seed)) {
    const folder = path.join(files, String(Math.floor(n / 1000)));
    if (n % 1000 === 0) await mkdir(folder, { recursive: true });
    pending.push(writeFile(path.join(folder, `${n}.txt`), doc.text));
    n++;
    if (pending.length >= 256) {
      await Promise.all(pending);
      pending = [];
    }
  }
  await Promise.all(pending);
  await writeFile(marker, wanted);
  return { files, count, written: true };
}
