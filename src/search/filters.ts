/**
 * The edge check of search filters: every field of a CandidateFilters value is checked and normalised before
 * it reaches the store's query builder (store/queries/filters.ts). Expected failures are values naming the field.
 */
import type { CandidateFilters } from '../store/queries/filters.js';
import { globToRegex } from '../store/queries/path-glob.js';

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

/**
 * Checks every field and answers a normalised copy (extensions lower-case without dots, keywords trimmed). A
 * failure names the field; its reason reads after the caller's name for that field ("filters.path: ...").
 */
export function validateCandidateFilters(input: CandidateFilters): FilterCheck {
  const out: CandidateFilters = {};
  if (input.extensions !== undefined) {
    if (!isStringList(input.extensions)) return bad('extensions', 'must be a list of strings');
    const exts = input.extensions.map((e) => e.trim().replace(/^\.+/, '').toLowerCase());
    if (exts.some((e) => e === '' || /[/\\\s]/.test(e) || NUL.test(e))) {
      return bad('extensions', "must be extension names like 'pdf' or '.md'");
    }
    out.extensions = [...new Set(exts)];
  }
  for (const field of DATE_FIELDS) {
    const v = input[field];
    if (v === undefined) continue;
    if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(Date.parse(v))) {
      return bad(field, `must be an ISO 8601 date or timestamp, got '${String(v)}'`);
    }
    // Bound as an unambiguous UTC instant: PostgreSQL and JavaScript read zone-less times differently.
    out[field] = new Date(v).toISOString();
  }
  for (const field of ['sizeMin', 'sizeMax'] as const) {
    const v = input[field];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return bad(field, 'must be a whole number of bytes ≥ 0');
    out[field] = v;
  }
  if (input.directory !== undefined) {
    const d = input.directory;
    if (typeof d !== 'string' || !d.startsWith('/') || NUL.test(d)) return bad('directory', `must be an absolute path, got '${String(d)}'`);
    out.directory = d;
  }
  if (input.pathGlob !== undefined) {
    const t = globToRegex(input.pathGlob);
    if (!t.ok) return bad('pathGlob', t.reason);
    out.pathGlob = input.pathGlob;
  }
  if (input.keywords !== undefined) {
    if (!isStringList(input.keywords)) return bad('keywords', 'must be a list of strings');
    const kws = input.keywords.map((k) => k.trim());
    if (kws.some((k) => k === '' || NUL.test(k))) return bad('keywords', 'must not be empty');
    out.keywords = [...new Set(kws)];
  }
  return { ok: true, filters: out };
}
