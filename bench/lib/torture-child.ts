/**
 * One file through the pipeline threads' work, in a process of its own (bench/parse-torture.ts): parse, then
 * analyze and embed with the built-in embedder, as a pipeline thread does with the service's default settings.
 * Prints one JSON line: the outcome, the stage times and the process's peak resident memory.
 *   node dist/bench/lib/torture-child.js FILE MAX_TEXT_CHARS MAX_FILE_BYTES TIME_BUDGET_MS
 */
import { defaultBuiltinDir, loadEmbedder } from '../../src/pipeline/embedders/index.js';
import { enrich, prepare } from '../../src/pipeline/task.js';

const [file, maxTextChars, maxFileBytes, timeBudgetMs] = process.argv.slice(2);
if (!file) throw new Error('usage: torture-child FILE MAX_TEXT_CHARS MAX_FILE_BYTES TIME_BUDGET_MS');

const t0 = performance.now();
const parsed = await prepare({
  kind: 'prepare',
  path: file,
  parse: { maxTextChars: Number(maxTextChars), maxFileBytes: Number(maxFileBytes), timeBudgetMs: Number(timeBudgetMs) },
});
const parseMs = performance.now() - t0;
let result: Record<string, unknown>;
if (!parsed.ok) {
  result = { outcome: parsed.code === 'contains_secret' ? 'excluded' : `failed:${parsed.code}`, reason: parsed.reason, parseMs };
} else {
  const doc = parsed.doc;
  const embedder = await loadEmbedder({ builtinDir: defaultBuiltinDir() });
  const enriched = await enrich(
    {
      kind: 'enrich',
      doc,
      embedder: { modelDir: null, builtinDir: defaultBuiltinDir(), generation: 0 },
      words: null,
      table: null,
      analyze: { provider: 'local', model: 'extractive', timeoutMs: 30_000, maxInputChars: 100_000 },
      embed: true,
    },
    embedder,
  );
  await embedder.close();
  result = {
    outcome: 'indexed',
    format: doc.format,
    mime: doc.mime,
    chars: doc.text.length,
    truncated: doc.textTruncated,
    note: doc.note ?? null,
    title: enriched.analysis.title,
    head: doc.text.slice(0, 2000),
    parseMs,
    analyzeMs: enriched.timings.analyzeMs,
    embedMs: enriched.timings.embedMs,
  };
}
result.peakRssMb = process.resourceUsage().maxRSS / 1024;
process.stdout.write(`${JSON.stringify(result)}\n`);
