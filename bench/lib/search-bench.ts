/**
 * Pure helpers of the search benchmarks (bench/search-quality.ts, bench/search-latency.ts): command-line options,
 * result names to corpus ids, latency summaries and markdown tables. Unit-tested in test/bench/lib.
 */
import { percentile } from './metrics.js';

/** `--name value` options and `--flag` switches of a benchmark's command line. */
export class BenchArgs {
  readonly #values = new Map<string, string | null>();

  constructor(argv: readonly string[]) {
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i]!;
      if (!a.startsWith('--') || a.length < 3) throw new Error(`unexpected argument '${a}' (options are --name value or --flag)`);
      const value = argv[i + 1];
      if (value !== undefined && !value.startsWith('--')) {
        this.#values.set(a.slice(2), value);
        i++;
      } else this.#values.set(a.slice(2), null);
    }
  }

  /** The value after `--name`, or undefined when absent. Throws when the option is given without a value. */
  option(name: string): string | undefined {
    const value = this.#values.get(name);
    if (value === null) throw new Error(`--${name} needs a value`);
    return value;
  }

  flag(name: string): boolean {
    return this.#values.has(name);
  }

  /** A positive integer option, or `fallback`. */
  count(name: string, fallback: number): number {
    const text = this.option(name);
    if (text === undefined) return fallback;
    const n = Number(text);
    if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} must be a non-negative integer, got '${text}'`);
    return n;
  }
}

/** SciFact result files are named `<corpus-id>.txt`: the corpus id, or null for any other file. */
export function corpusIdOf(filename: string): string | null {
  const m = /^(.+)\.txt$/.exec(filename);
  return m ? m[1]! : null;
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
