/**
 * The built-in embedder's tokenizer over a folder's texts, on one thread: CPU ms a text for one pass of
 * StaticTokenizer.scan (every word's span and vocabulary ids, what chunking a document costs before any vector),
 * and a checksum of all of them; with --compare, another build's tokenizer over the same texts in the same process,
 * the rounds alternated, and its checksum beside this one (the same words and ids give the same sum).
 *
 *   npm run bench:tokenizer -- DIR [--rounds N] [--compare OTHER/dist/src/pipeline/embedders/static.js]
 *
 * The texts are the pipeline's own (parseFile with the service's default limits), read once before any round.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { defaultSettings } from '../src/settings/schema.js';
import { parseLimits } from '../src/indexing/indexer.js';
import { defaultBuiltinDir } from '../src/pipeline/embedders/index.js';
import { StaticTokenizer } from '../src/pipeline/embedders/static.js';
import { parseFile } from '../src/pipeline/stages/parse.js';
import { positiveInt, readBenchArgs } from './lib/cli.js';
import { listFiles } from './lib/files.js';

const { dir, rounds, compare } = readBenchArgs(
  {
    command: 'npm run bench:tokenizer --',
    about: "The built-in embedder's tokenizer over a folder's parsed texts: CPU ms a text, and a checksum of its words.",
    positional: { name: 'DIR', description: 'a folder of documents (e.g. "$(bash bench/fetch-debian-docs.sh)")' },
    options: {
      rounds: { type: 'string', value: 'N', default: '5', description: 'passes over the texts per build' },
      compare: { type: 'string', value: 'STATIC_JS', description: "another build's dist/src/pipeline/embedders/static.js, run alternately" },
    },
  },
  ({ values, positional }) => {
    if (!positional) throw new Error('DIR: none given');
    return { dir: path.resolve(positional), rounds: positiveInt('rounds', values.rounds), compare: values.compare ?? null };
  },
);

interface Scanner {
  scan(text: string, visit: (start: number, end: number, ids: readonly number[]) => void): void;
}

const vocab = path.join(defaultBuiltinDir(), 'vocab.txt');
const builds: { name: string; tokenizer: Scanner }[] = [{ name: 'this build', tokenizer: StaticTokenizer.fromVocabFile(vocab) }];
if (compare) {
  const other = (await import(pathToFileURL(path.resolve(compare)).href)) as { StaticTokenizer: { fromVocabFile(file: string): Scanner } };
  builds.push({ name: 'compared build', tokenizer: other.StaticTokenizer.fromVocabFile(vocab) });
}

const files = await listFiles(dir);
const limits = parseLimits(defaultSettings().indexing);
const texts: string[] = [];
for (const file of files) {
  const outcome = await parseFile(file, limits);
  if (outcome.ok && outcome.doc.text !== '') texts.push(outcome.doc.text);
}
const chars = texts.reduce((sum, text) => sum + text.length, 0);
console.log(`${texts.length} texts of ${files.length} files in ${dir}, ${(chars / Math.max(1, texts.length)).toFixed(0)} characters a text`);

/** One pass: CPU ms, words, and a checksum of every word's span and ids. */
function pass(tokenizer: Scanner): { cpuMs: number; words: number; sum: number } {
  let words = 0;
  let sum = 0;
  const before = process.cpuUsage();
  for (const text of texts) {
    tokenizer.scan(text, (start, end, ids) => {
      words++;
      sum = (Math.imul(sum, 31) + start * 7 + end) | 0;
      for (const id of ids) sum = (Math.imul(sum, 31) + id) | 0;
    });
  }
  const used = process.cpuUsage(before);
  return { cpuMs: (used.user + used.system) / 1000, words, sum };
}

const results = builds.map(() => ({ cpuMs: [] as number[], words: 0, sum: 0 }));
for (let round = 0; round < rounds; round++) {
  builds.forEach((build, i) => {
    const { cpuMs, words, sum } = pass(build.tokenizer);
    results[i]!.cpuMs.push(cpuMs);
    results[i]!.words = words;
    results[i]!.sum = sum;
  });
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`\n| build | CPU ms a text (median of ${rounds}) | rounds (CPU ms, all texts) | words | checksum |`);
console.log('|---|---|---|---|---|');
builds.forEach((build, i) => {
  const r = results[i]!;
  console.log(`| ${build.name} | ${(median(r.cpuMs) / texts.length).toFixed(3)} | ${r.cpuMs.map((ms) => ms.toFixed(0)).join(' ')} | ${r.words} | ${r.sum} |`);
});
if (builds.length > 1) console.log(results[0]!.sum === results[1]!.sum && results[0]!.words === results[1]!.words ? '\nthe same words and ids' : '\nthe builds DIFFER');
