/**
 * Pure helpers of the search benchmarks (bench/search-quality.ts, bench/search-latency.ts, bench/search-profile.ts):
 * result names to corpus ids, a query file's queries, latency summaries and markdown tables. Unit-tested in
 * test/bench/lib.
 */
import { percentile } from './metrics.js';

/** SciFact result files are named `<corpus-id>.txt`: the corpus id, or null for any other file. */
export function corpusIdOf(filename: string): string | null {
  const m = /^(.+)\.txt$/.exec(filename);
  return m ? m[1]! : null;
}

/** The queries of a query file's `text`: one a line, trimmed; blank lines and lines starting with '#' left out. */
export function readQueryFile(text: string, name: string): string[] {
  const queries = text.split('\n').map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
  if (queries.length === 0) throw new Error(`no queries in ${name} (one a line; '#' starts a comment)`);
  return queries;
}

export interface LatencySummary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

/** Nearest-rank percentiles (metrics.percentile) and the mean of a list of milliseconds. */
export function summarize(values: readonly number[]): LatencySummary {
  const mean = values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length;
  return { n: values.length, p50: percentile(values, 0.5), p95: percentile(values, 0.95), p99: percentile(values, 0.99), mean };
}

/** A markdown table; cells are printed as given, a number with `digits` decimals. */
export function markdownTable(header: readonly string[], rows: readonly (readonly (string | number)[])[], digits = 1): string {
  const cell = (c: string | number): string => (typeof c === 'number' ? (Number.isFinite(c) ? c.toFixed(digits) : '–') : c);
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const row of rows) {
    if (row.length !== header.length) throw new Error(`row has ${row.length} cells, header ${header.length}`);
    lines.push(`| ${row.map(cell).join(' | ')} |`);
  }
  return lines.join('\n');
}
