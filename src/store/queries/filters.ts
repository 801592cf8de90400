/**
 * Search filters as SQL conditions on the files table, so they narrow the candidates inside the database
 * query (both the keyword and the semantic query), never by trimming a top-k afterwards.
 *
 * The filters arrive validated (search/filters.ts, at the edge); buildFilterConditions() trusts them and only
 * ever binds values as parameters.
 */
import { globToRegex } from './path-glob.js';
import { underPattern, type SqlParams } from './params.js';

export interface CandidateFilters {
  /** File extensions, any case, with or without the dot ('pdf', '.MD'). A file matches any one. */
  extensions?: string[];
  /** ISO 8601 bounds, inclusive. */
  modifiedAfter?: string;
  modifiedBefore?: string;
  createdAfter?: string;
  createdBefore?: string;
  /** Size bounds in bytes, inclusive. */
  sizeMin?: number;
  sizeMax?: number;
  /** Absolute directory: only files below it, at any depth, on a path boundary (/a/b never matches /a/bc). */
  directory?: string;
  /** Glob on the path or name, see path-glob.ts. */
  pathGlob?: string;
  /** Keywords the file must all carry (case-insensitive, whole keyword). */
  keywords?: string[];
}

/**
 * SQL conditions (to be AND-ed) on the files row `alias`, for validated filters. Empty when there is no filter.
 */
export function buildFilterConditions(filters: CandidateFilters, params: SqlParams, alias = 'f'): string[] {
  const c: string[] = [];
  if (filters.extensions && filters.extensions.length > 0) {
    c.push(`${alias}.extension = ANY(${params.add(filters.extensions, 'text[]')})`);
  }
  if (filters.modifiedAfter) c.push(`${alias}.modified >= ${params.add(filters.modifiedAfter, 'timestamptz')}`);
  if (filters.modifiedBefore) c.push(`${alias}.modified <= ${params.add(filters.modifiedBefore, 'timestamptz')}`);
  if (filters.createdAfter) c.push(`${alias}.created >= ${params.add(filters.createdAfter, 'timestamptz')}`);
  if (filters.createdBefore) c.push(`${alias}.created <= ${params.add(filters.createdBefore, 'timestamptz')}`);
  if (filters.sizeMin !== undefined) c.push(`${alias}.size >= ${params.add(filters.sizeMin, 'bigint')}`);
  if (filters.sizeMax !== undefined) c.push(`${alias}.size <= ${params.add(filters.sizeMax, 'bigint')}`);
  if (filters.directory) c.push(`${alias}.path LIKE ${params.add(underPattern(filters.directory), 'text')}`);
  if (filters.pathGlob) {
    const t = globToRegex(filters.pathGlob);
    if (!t.ok) throw new Error(`unvalidated path glob reached the query builder: ${t.reason}`);
    c.push(`${alias}.${t.target === 'name' ? 'filename' : 'path'} ~* ${params.add(t.regex, 'text')}`);
  }
  for (const keyword of filters.keywords ?? []) {
    c.push(`EXISTS (SELECT 1 FROM unnest(${alias}.keywords) AS kw WHERE lower(kw) = lower(${params.add(keyword, 'text')}))`);
  }
  return c;
}
