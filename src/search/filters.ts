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

/** YYYY-MM-DD, optionally with a time (THH:MM, :SS, .fraction) and a zone (Z, ±HH:MM, ±HHMM). */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * The instant an ISO 8601 date or timestamp names, or null when it names none. Date.parse rolls impossible
 * dates over (2026-02-30 becomes March 2) and accepts free text: every field is checked against its range here.
 */
export function parseIsoDate(text: string): Date | null {
  const m = ISO_DATE.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', sec = '0', zone] = m;
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, sec].map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return null;
  if (zone && zone.toUpperCase() !== 'Z') {
    const offset = zone.replace(':', '');
    if (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(3, 5)) > 59) return null;
  }
  const date = new Date(text.trim().replace(' ', 'T'));
  return Number.isNaN(date.getTime()) ? null : date;
}

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
    const date = typeof v === 'string' ? parseIsoDate(v) : null;
    if (date === null) {
      return bad(field, `must be a real date in ISO 8601 form, e.g. '2026-02-28' or '2026-02-28T13:45:00Z', got '${String(v).slice(0, 60)}'`);
    }
    // Bound as an unambiguous UTC instant: PostgreSQL and JavaScript read zone-less times differently.
    out[field] = date.toISOString();
  }
  for (const field of ['sizeMin', 'sizeMax'] as const) {
    const v = input[field];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) return bad(field, 'must be a whole number of bytes ≥ 0');
    out[field] = v;
  }
  // Bounds that cross exclude every file: say so rather than answer an empty list.
  for (const [low, high] of [['modifiedAfter', 'modifiedBefore'], ['createdAfter', 'createdBefore'], ['sizeMin', 'sizeMax']] as const) {
    const a = out[low];
    const b = out[high];
    if (a !== undefined && b !== undefined && a > b) return bad(low, `is past its upper bound (${String(a)} > ${String(b)}): no file can match`);
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
