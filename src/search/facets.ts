/**
 * Facet counts of a search: how the ranked files spread over extensions, folders and modification periods, so
 * a person can narrow a search by clicking one. Counted over the files the ranking produced (the candidates
 * of each side, fused: at least the best 100 of each), not over every file that shares a word with the query:
 * hybrid and semantic ranking score every file, so "all matches" would be the whole index. Pure: the facts come
 * from the store.
 */
import path from 'node:path';
import type { FacetFacts } from '../store/repositories/search.repository.js';

export interface FacetBucket {
  /** What narrows the search to this bucket: an extension (filters.extension), a folder (directory), or an ISO
   * 8601 instant (filters.modified_after, or filters.modified_before when `bound` is 'before'). */
  value: string;
  label: string;
  count: number;
  /** Modified periods only: which bound `value` is. */
  bound?: 'after' | 'before';
}

export interface SearchFacets {
  /** The ranked files the counts are over. */
  counted: number;
  extension: FacetBucket[];
  /** Sub-folders of the deepest folder holding every counted file (or of the searched directory), by count. */
  folder: FacetBucket[];
  /** Cumulative: "past week" includes "past day"; "older than a year" is the rest. */
  modified: FacetBucket[];
}

/** Buckets of a facet at most (the rest are left out). */
export const MAX_FACET_BUCKETS = 12;

const DAY_MS = 86_400_000;
const PERIODS = [
  { label: 'past day', ms: DAY_MS },
  { label: 'past week', ms: 7 * DAY_MS },
  { label: 'past month', ms: 30 * DAY_MS },
  { label: 'past year', ms: 365 * DAY_MS },
] as const;

function top(counts: Map<string, { label: string; count: number }>): FacetBucket[] {
  return [...counts]
    .map(([value, { label, count }]) => ({ value, label, count }))
    .sort((a, b) => b.count - a.count || a.label.localeCompare(b.label))
    .slice(0, MAX_FACET_BUCKETS);
}

/** The deepest folder containing every path (POSIX paths: the service indexes absolute paths of this machine). */
export function commonFolder(paths: readonly string[]): string {
  if (paths.length === 0) return path.sep;
  let common = path.dirname(paths[0]!);
  for (const p of paths) {
    while (common !== path.dirname(common) && !(p.startsWith(common) && p[common.length] === path.sep)) common = path.dirname(common);
  }
  return common;
}

export function computeFacets(facts: readonly FacetFacts[], options: { directory?: string; now?: number } = {}): SearchFacets {
  const now = options.now ?? Date.now();
  const extensions = new Map<string, { label: string; count: number }>();
  const folders = new Map<string, { label: string; count: number }>();
  const periods = PERIODS.map(() => 0);
  let older = 0;

  const base = options.directory ?? commonFolder(facts.map((f) => f.path));
  for (const f of facts) {
    const ext = f.extension || '';
    const e = extensions.get(ext) ?? { label: ext === '' ? '(none)' : ext, count: 0 };
    e.count++;
    extensions.set(ext, e);

    const rest = path.relative(base, f.path);
    const slash = rest.indexOf(path.sep);
    if (slash > 0 && !rest.startsWith('..')) {
      const name = rest.slice(0, slash);
      const folder = path.join(base, name);
      const b = folders.get(folder) ?? { label: name, count: 0 };
      b.count++;
      folders.set(folder, b);
    }

    const modified = f.modified === null ? NaN : Date.parse(f.modified);
    if (Number.isNaN(modified)) continue;
    const age = now - modified;
    PERIODS.forEach((p, i) => {
      if (age <= p.ms) periods[i]!++;
    });
    if (age > PERIODS[PERIODS.length - 1]!.ms) older++;
  }

  const modified: FacetBucket[] = PERIODS.map((p, i) => ({
    value: new Date(now - p.ms).toISOString(),
    label: p.label,
    count: periods[i]!,
    bound: 'after' as const,
  })).filter((b) => b.count > 0);
  if (older > 0) modified.push({ value: new Date(now - PERIODS[PERIODS.length - 1]!.ms).toISOString(), label: 'older than a year', count: older, bound: 'before' });
  return { counted: facts.length, extension: top(extensions), folder: top(folders), modified };
}
