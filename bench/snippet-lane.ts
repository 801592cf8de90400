/**
 * Snippets of one search page (issue 16): what a search at limit 50 costs the main thread when its snippets are
 * cut there (before) and when they are cut on the snippet lane's thread (now), over result texts at the size the
 * store hands over (the first 20,000 characters of each file). Per search: the main thread's busy time (event
 * loop utilisation) and the wall time until the snippets are there.
 *   npm run bench:snippets -- [--results N] [--chars N] [--rounds N]
 */
import { performance } from 'node:perf_hooks';
import { buildSnippet, TermMatcher } from '../src/search/snippet.js';
import { SnippetLane, type SnippetSource } from '../src/search/snippet-lane.js';
import { positiveInt, readBenchArgs } from './lib/cli.js';

const { results, chars, rounds } = readBenchArgs(
  {
    command: 'npm run bench:snippets --',
    about: 'Main-thread and wall time of cutting one search page of snippets, in-thread versus on the snippet lane.',
    options: {
      results: { type: 'string', value: 'N', default: '50', description: 'results on the page' },
      chars: { type: 'string', value: 'N', default: '20000', description: 'characters of text per result' },
      rounds: { type: 'string', value: 'N', default: '200', description: 'searches measured per variant' },
    },
  },
  ({ values }) => ({
    results: positiveInt('results', values.results),
    chars: positiveInt('chars', values.chars),
    rounds: positiveInt('rounds', values.rounds),
  }),
);

const VOCABULARY = 'the keepers of the old lighthouse climbed its stairs every evening to light the lamp over the harbour while ships waited'.split(' ');
function text(seed: number): string {
  const words: string[] = [];
  for (let i = 0, length = 0; length < chars; i++) {
    const word = VOCABULARY[(i * 7 + seed) % VOCABULARY.length]!;
    words.push(word);
    length += word.length + 1;
  }
  return words.join(' ').slice(0, chars);
}
const sources: SnippetSource[] = Array.from({ length: results }, (_, i) => ({ text: text(i), summary: '' }));
const lexemes = ['lighthous', 'keeper'];

async function measure(cut: () => Promise<unknown>): Promise<{ busyMs: number; wallMs: number }> {
  for (let i = 0; i < 10; i++) await cut(); // warm up
  const elu = performance.eventLoopUtilization();
  const started = performance.now();
  for (let i = 0; i < rounds; i++) await cut();
  const wall = performance.now() - started;
  const used = performance.eventLoopUtilization(elu);
  return { busyMs: (used.active / rounds), wallMs: wall / rounds };
}

const inThread = await measure(async () => {
  const matcher = new TermMatcher(lexemes);
  return sources.map((s) => buildSnippet(s.text, matcher));
});
const lane = SnippetLane.start();
const onLane = await measure(() => lane.snippets(sources, lexemes));
await lane.close();

console.log(`\none search page: ${results} results of ${chars.toLocaleString('en')} characters, ${rounds} searches each\n`);
console.log('| snippets cut | main thread busy per search (ms) | wall per search (ms) |');
console.log('|---|---|---|');
console.log(`| on the main thread (before) | ${inThread.busyMs.toFixed(2)} | ${inThread.wallMs.toFixed(2)} |`);
console.log(`| on the snippet lane (now) | ${onLane.busyMs.toFixed(2)} | ${onLane.wallMs.toFixed(2)} |`);
