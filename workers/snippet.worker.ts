/**
 * Thread entry of the snippet lane (src/search/snippet-lane.ts): result snippets and preview highlights are cut
 * here, off the thread that answers every request.
 */
import { parentPort } from 'node:worker_threads';
import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { answerMemoryProbes } from '../src/lib/thread-memory.js';
import { buildSnippet, highlightWords, TermMatcher, type Snippet } from '../src/search/snippet.js';
import type { SnippetWorkerApi } from '../src/search/snippet-lane.js';

if (!parentPort) throw new Error('snippet.worker must run as a worker thread');
answerMemoryProbes('snippet');

const api: SnippetWorkerApi = {
  snippets(sources, lexemes) {
    const matcher = new TermMatcher(lexemes);
    return sources.map(({ text, summary }): Snippet => {
      const cut = buildSnippet(text, matcher);
      return cut.text === '' ? buildSnippet(summary, matcher) : cut;
    });
  },
  highlight(text, lexemes) {
    return highlightWords(text, new TermMatcher(lexemes));
  },
  hold(gate) {
    Atomics.wait(gate, 0, 0);
  },
  exit(code) {
    process.exit(code);
  },
};

expose(api, nodeEndpoint(parentPort));
