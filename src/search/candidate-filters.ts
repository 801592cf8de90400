/**
 * Search filters as SQL conditions on the files table, so they narrow the candidates inside the database
 * query (both the keyword and the semantic query), never by trimming a top-k afterwards.
 *
 * validateCandidateFilters() is the edge check (expected failures are values); buildFilterConditions()
 * trusts its input and only ever binds values as parameters.
 */
import { underPattern } from '../store/repositories/files.repository.js';
import { globToRegex } from './path-glob.js';
import type { SqlParams } from './sql-params.js';

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

export type FilterCheck =
  | { ok: true; filters: CandidateFilters }
  | { ok: false; code: 'invalid_filter'; field: keyof CandidateFilters; reason: string };

const DATE_FIELDS = ['modifiedAfter', 'modifiedBefore', 'createdAfter', 'createdBefore'] as const;
// eslint-disable-next-line no-control-regex
const NUL = /\u0000/;

function bad(field: keyof CandidateFilters, reason: string): FilterCheck {
  return { ok: false, code: 'invalid_filter', field, reason };
}

function isStringList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** Checks every field and answers a normalised copy (extensions lower-case without dots, keywords trimmed). */
export function validateCandidateFilters(input: CandidateFilters): FilterCheck {
  const out: CandidateFilters = {};
  if (input.extensions !== undefined) {
    if (!isStringList(input.extensions)) return bad('extensions', 'extensions must be a list of strings');
    const exts = input.extensions.map((e) => e.trim().replace(/^\.+/, '').toLowerCase());
    if (exts.some((e) => e === '' || /[/\\\s]/.test(e) || NUL.test(e))) {
      return bad('extensions', "extensions must be names like 'pdf' or '.md'");
    }
    out.extensions = [...new Set(exts)];
  }
  for (const field of DATE_FIELDS) {
    const v = input[field];
    if (v === undefined) continue;
    if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(Date.parse(v))) {
      return bad(field, `${field} must be an ISO 8601 date or timestamp`);
    }
    // Bound as an unambiguous UTC instant: PostgreSQL and JavaScript read zone-less times differently.
    out[field] = new Date(v).toISOString();
  }
  for (const field of ['sizeMin', 'sizeMax'] as const) {
    const v = input[field];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return bad(field, `${field} must be a whole number of bytes ≥ 0`);
    out[field] = v;
  }
  if (input.directory !== undefined) {
    const d = input.directory;
    if (typeof d !== 'string' || !d.startsWith('/') || NUL.test(d)) return bad('directory', 'directory must be an absolute path');
    out.directory = d;
  }
  if (input.pathGlob !== undefined) {
    const t = globToRegex(input.pathGlob);
    if (!t.ok) return bad('pathGlob', t.reason);
    out.pathGlob = input.pathGlob;
  }
  if (input.keywords !== undefined) {
    if (!isStringList(input.keywords)) return bad('keywords', 'keywords must be a list of strings');
    const kws = input.keywords.map((k) => k.trim());
    if (kws.some((k) => k === '' || NUL.test(k))) return bad('keywords', 'keywords must not be empty');
    out.keywords = [...new Set(kws)];
  }
  return { ok: true, filters: out };
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
