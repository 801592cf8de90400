/** `filesift search QUERY...`: readable columns, or the service's whole answer with --json. */
import path from 'node:path';
import type { SearchBody, SearchResponseBody } from '../http/routes/search.schemas.js';
import { choiceOption, listItems, nonNegativeInt, positiveInt } from '../lib/command-line.js';
import { formatSize } from '../lib/format.js';
import { SEARCH_MODES } from '../search/search.service.js';
import { clientFor } from './client.js';
import { localDateTime, styler, table, writeJson } from './output.js';
import { defineCommand, EXIT, SERVICE_OPTIONS } from './program.js';

/** The snippet with its matched words in bold (on a terminal). */
function marked(snippet: string, highlights: readonly (readonly number[])[], bold: (s: string) => string): string {
  let out = '';
  let at = 0;
  for (const [start = 0, end = 0] of highlights) {
    if (start < at) continue;
    out += snippet.slice(at, start) + bold(snippet.slice(start, end));
    at = end;
  }
  return out + snippet.slice(at);
}

export const searchCommand = defineCommand({
  name: 'search',
  summary: 'Search the index: best files first, in columns (or --json)',
  spec: {
    command: 'filesift search',
    about: 'Searches the running service. Quoted "phrases" must occur; -word excludes files with it.',
    positional: { name: 'QUERY', description: 'the words to search for', required: true, variadic: true },
    options: {
      mode: { type: 'string', value: 'MODE', description: `${SEARCH_MODES.join(', ')}`, default: 'hybrid', choices: SEARCH_MODES },
      ext: { type: 'string', value: 'EXT', description: 'only files with this extension (pdf, .md; or a list: pdf,docx)', multiple: true },
      dir: { type: 'string', value: 'DIR', description: 'only files below this folder', complete: 'directory' },
      limit: { type: 'string', value: 'N', description: 'results, from 1 to 1000', default: '20' },
      offset: { type: 'string', value: 'N', description: 'skip the first N results (paging)', default: '0' },
      long: { type: 'boolean', description: 'also print each title and snippet' },
      json: { type: 'boolean', description: "print the service's answer as JSON (for scripts)" },
      ...SERVICE_OPTIONS,
    },
    notes: ['Columns: SCORE (relevance 0-1), MODIFIED, SIZE, PATH. Nothing found prints nothing on stdout and says so on stderr (exit 0).'],
  },
  async run({ values, positionals }, io) {
    const extensions = values.ext.flatMap((e) => listItems('ext', e));
    const body: SearchBody = {
      query: positionals.join(' '),
      mode: choiceOption('mode', values.mode, SEARCH_MODES),
      limit: positiveInt('limit', values.limit),
      offset: nonNegativeInt('offset', values.offset),
      ...(extensions.length > 0 ? { filters: { extension: extensions } } : {}),
      ...(values.dir ? { directory: path.resolve(io.cwd, values.dir) } : {}),
    };
    const answer = await clientFor(values, io.env).post<SearchResponseBody>('/api/search', body);
    if (values.json) {
      writeJson(io, answer);
      return EXIT.ok;
    }
    if (answer.notice) io.stderr.write(`note: ${answer.notice}\n`);
    if (answer.results.length === 0) {
      io.stderr.write(`no results for '${body.query}' (${answer.mode})\n`);
      return EXIT.ok;
    }
    const { bold, dim } = styler(io);
    if (values.long) {
      for (const r of answer.results) {
        io.stdout.write(`${r.relevance_score.toFixed(2)}  ${bold(r.file.file_path)}\n`);
        io.stdout.write(`      ${r.file.title || r.file.filename} · ${localDateTime(r.file.modified)} · ${formatSize(r.file.size)}\n`);
        if (r.snippet) io.stdout.write(`      ${dim(marked(r.snippet, r.highlights, bold))}\n`);
        io.stdout.write('\n');
      }
    } else {
      const rows = answer.results.map((r) => [r.relevance_score.toFixed(2), localDateTime(r.file.modified), formatSize(r.file.size), r.file.file_path]);
      io.stdout.write(`${table([['SCORE', 'MODIFIED', 'SIZE', 'PATH'], ...rows])}\n`);
    }
    if (answer.has_more) io.stderr.write(`more results: --offset ${body.offset! + answer.results.length}\n`);
    return EXIT.ok;
  },
});
