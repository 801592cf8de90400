/**
 * Synthetic documents for scale tests, with a seeded generator (same seed, same corpus). Not for quality, only for
 * index size and query cost at many files. Two kinds:
 *
 * - `uniform`: every word drawn from the sources' unigram distribution, lengths from their length distribution. No
 *   document is about anything: a query word is spread evenly over the collection, so every block of postings looks
 *   alike and no top-k pruning can skip any. The worst case for the keyword index.
 * - `topical` (the default): each document is about one source document (its topic): its length is the topic's, and
 *   each word comes from the topic with probability TOPIC_SHARE, else from the unigram distribution. Words cluster
 *   in the documents of their topics as in a real home directory (a folder of notes on one subject, versions of one
 *   report), while the common words stay everywhere.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { seededRandom } from '../../scripts/lib/seeded-random.js';

export { seededRandom };

export interface SyntheticDoc {
  title: string;
  text: string;
}

export type SyntheticKind = 'topical' | 'uniform';
export const SYNTHETIC_KINDS: readonly SyntheticKind[] = ['topical', 'uniform'];

/** A topical document's share of words drawn from its topic (the rest: from the whole corpus). */
const TOPIC_SHARE = 0.6;

/** Yields `count` documents sampled from `sources` (their words and their lengths in words). */
export function* syntheticDocs(sources: readonly string[], count: number, seed = 42, kind: SyntheticKind = 'topical'): Generator<SyntheticDoc> {
  const docs = sources.map((text) => text.split(/\s+/).filter((x) => x !== '')).filter((w) => w.length > 0);
  const words = docs.flat();
  if (words.length === 0) throw new Error('syntheticDocs needs non-empty sources');
  const random = seededRandom(seed);
  const from = (list: readonly string[]): string => list[Math.floor(random() * list.length)]!;
  for (let i = 0; i < count; i++) {
    const topic = docs[Math.floor(random() * docs.length)]!;
    const pick = kind === 'uniform' ? () => from(words) : () => (random() < TOPIC_SHARE ? from(topic) : from(words));
    const length = Math.max(5, topic.length);
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
 * call finished the same tree or a larger one (a kept --scale-dir makes re-runs skip the writing). The generator's
 * n-th document does not depend on the count, so a larger tree holds the smaller one: a 5k run after a 105k one
 * must not cut the tree a later 100k run (or one running beside it) reads. The marker sits outside the indexed
 * folder so it is never indexed itself.
 */
export async function writeSyntheticTree(root: string, sources: readonly string[], count: number, seed = 42, kind: SyntheticKind = 'topical'): Promise<SyntheticTree> {
  const files = path.join(root, 'files');
  const marker = path.join(root, 'complete.json');
  const wanted = JSON.stringify({ count, seed, kind });
  const found = JSON.parse((await readFile(marker, 'utf8').catch(() => null)) ?? 'null') as { count: number; seed: number; kind: SyntheticKind } | null;
  if (found && found.seed === seed && found.kind === kind && found.count >= count) return { files, count, written: false };
  await rm(files, { recursive: true, force: true });
  await rm(marker, { force: true });
  let pending: Promise<void>[] = [];
  let n = 0;
  for (const doc of syntheticDocs(sources, count, seed, kind)) {
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
