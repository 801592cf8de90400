/**
 * Pure operations on a filter configuration value. Nothing here touches the disk or the index: callers
 * persist the returned config and, when the active lists changed, apply it (see diff.ts).
 *
 * The per-mode lists (blacklist_exclude, blacklist_include, whitelist_include, whitelist_exclude) are the
 * source of truth; `exclude` and `include` are legacy mirrors of the active mode's lists, recomputed by
 * normaliseConfig after every change. Switching modes therefore loses nothing.
 */
import { Value } from '#typebox/value';
import { defaultFilterConfig } from './defaults.js';
import { activeLists } from './matcher.js';
import { patternKey, normalisePatternText, validatePattern } from './pattern.js';
import type { PatternContext } from './pattern.js';
import { FilterConfigSchema, MAX_PATTERNS_PER_LIST } from './schema.js';
import type { FilterConfig, FilterConfigUpdate, FilterMode, ModeListField, PatternListName } from './schema.js';

export { validatePattern } from './pattern.js';
export { activeLists } from './matcher.js';
export type { PatternCheck, PatternContext } from './pattern.js';

export const MODE_LIST_FIELDS: readonly ModeListField[] = [
  'blacklist_exclude',
  'blacklist_include',
  'whitelist_include',
  'whitelist_exclude',
];

export type FilterConfigFailure =
  | { ok: false; code: 'invalid_pattern'; reason: string; field: string; pattern: string }
  | { ok: false; code: 'pattern_not_found'; reason: string; field: ModeListField; pattern: string }
  | { ok: false; code: 'conflicting_lists'; reason: string; field: string }
  | { ok: false; code: 'too_many_patterns'; reason: string; field: ModeListField };

export interface PatternChange {
  pattern: string;
  list: PatternListName;
  mode?: FilterMode;
}

export type PatternChangeResult =
  | {
      ok: true;
      config: FilterConfig;
      /** False when nothing changed (adding a pattern already present). */
      changed: boolean;
      /** The pattern as stored (trimmed, NFC); on removal, the stored spelling that was removed. */
      pattern: string;
      mode: FilterMode;
      field: ModeListField;
      /** True when the change touched the active mode's lists, i.e. the index may need updating. */
      affectsActive: boolean;
    }
  | FilterConfigFailure;

export type ConfigUpdateResult =
  | { ok: true; config: FilterConfig; changed: boolean; modeChanged: boolean; activeListsChanged: boolean }
  | FilterConfigFailure;

/** The per-mode field holding `list` for `mode`. */
export function listField(mode: FilterMode, list: PatternListName): ModeListField {
  return `${mode}_${list}` as ModeListField;
}

/** Trims, NFC-normalises and de-duplicates (ignoring case, keeping the first spelling) a list of patterns. */
export function normalisePatternList(patterns: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of patterns) {
    const p = normalisePatternText(raw);
    const key = p.toLowerCase();
    if (p === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(p);
  }
  return out;
}

/** A copy with normalised per-mode lists and the legacy `exclude`/`include` mirroring the active mode. */
export function normaliseConfig(config: FilterConfig): FilterConfig {
  const blacklist_exclude = normalisePatternList(config.blacklist_exclude);
  const blacklist_include = normalisePatternList(config.blacklist_include);
  const whitelist_include = normalisePatternList(config.whitelist_include);
  const whitelist_exclude = normalisePatternList(config.whitelist_exclude);
  const blacklist = config.mode === 'blacklist';
  return {
    mode: config.mode,
    exclude: [...(blacklist ? blacklist_exclude : whitelist_exclude)],
    include: [...(blacklist ? blacklist_include : whitelist_include)],
    blacklist_exclude,
    blacklist_include,
    whitelist_include,
    whitelist_exclude,
  };
}


function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((p, i) => patternKey(p) === patternKey(b[i] as string));
}

/** True when the two configs index exactly the same files (same mode, same active lists). */
export function sameActiveLists(a: FilterConfig, b: FilterConfig): boolean {
  const la = activeLists(a);
  const lb = activeLists(b);
  return a.mode === b.mode && sameList(la.exclude, lb.exclude) && sameList(la.include, lb.include);
}

/** Switches the active mode; every list is kept. */
export function setMode(config: FilterConfig, mode: FilterMode): { config: FilterConfig; changed: boolean } {
  return { config: normaliseConfig({ ...config, mode }), changed: config.mode !== mode };
}

/** Where a pattern change lands: the mode and list field, the checked pattern, and its spelling already there. */
type Target =
  | { ok: true; mode: FilterMode; field: ModeListField; pattern: string; base: FilterConfig; existing: string | undefined }
  | FilterConfigFailure;

function target(config: FilterConfig, change: PatternChange, context: PatternContext): Target {
  const mode = change.mode ?? config.mode;
  const field = listField(mode, change.list);
  const check = validatePattern(change.pattern, context);
  if (!check.ok) return { ok: false, code: 'invalid_pattern', reason: check.reason, field: 'pattern', pattern: change.pattern };
  const base = normaliseConfig(config);
  const key = patternKey(check.pattern);
  return { ok: true, mode, field, pattern: check.pattern, base, existing: base[field].find((p) => patternKey(p) === key) };
}

/** Adds one pattern. Adding a pattern already present (ignoring case) is a success with changed: false. */
export function addPattern(config: FilterConfig, change: PatternChange, context: PatternContext = {}): PatternChangeResult {
  const t = target(config, change, context);
  if (!t.ok) return t;
  const { mode, field, base, existing } = t;
  const affectsActive = mode === base.mode;
  if (existing !== undefined) return { ok: true, config: base, changed: false, pattern: existing, mode, field, affectsActive };
  if (base[field].length >= MAX_PATTERNS_PER_LIST) {
    return { ok: false, code: 'too_many_patterns', reason: `${field} already holds ${MAX_PATTERNS_PER_LIST} patterns`, field };
  }
  const next = normaliseConfig({ ...base, [field]: [...base[field], t.pattern] });
  return { ok: true, config: next, changed: true, pattern: t.pattern, mode, field, affectsActive };
}

/** Removes one pattern (matched ignoring case). A pattern not in the list is `pattern_not_found`. */
export function removePattern(config: FilterConfig, change: PatternChange, context: PatternContext = {}): PatternChangeResult {
  const t = target(config, change, context);
  if (!t.ok) return t;
  const { mode, field, base, existing } = t;
  if (existing === undefined) {
    return { ok: false, code: 'pattern_not_found', reason: `pattern '${t.pattern}' is not in ${field}`, field, pattern: t.pattern };
  }
  const next = normaliseConfig({ ...base, [field]: base[field].filter((p) => p !== existing) });
  return { ok: true, config: next, changed: true, pattern: existing, mode, field, affectsActive: mode === base.mode };
}

function validateList(field: string, patterns: readonly string[], context: PatternContext): FilterConfigFailure | null {
  for (let i = 0; i < patterns.length; i++) {
    const p = patterns[i] as string;
    const check = validatePattern(p, context);
    if (!check.ok) return { ok: false, code: 'invalid_pattern', reason: `${field}[${i}]: ${check.reason}`, field: `${field}[${i}]`, pattern: p };
  }
  return null;
}

/**
 * Applies a configuration change: optional mode, optional whole lists. Legacy `exclude`/`include`
 * target the mode in force after the update; sent together with that mode's own list they must agree.
 * All patterns are validated before anything changes (all or nothing).
 */
export function applyConfigUpdate(
  config: FilterConfig,
  update: FilterConfigUpdate,
  context: PatternContext = {},
): ConfigUpdateResult {
  const base = normaliseConfig(config);
  const mode = update.mode ?? base.mode;
  const lists: Partial<Record<ModeListField, string[]>> = {};
  for (const field of MODE_LIST_FIELDS) {
    const given = update[field];
    if (given === undefined) continue;
    const bad = validateList(field, given, context);
    if (bad) return bad;
    lists[field] = normalisePatternList(given);
  }
  for (const list of ['exclude', 'include'] as const) {
    const given = update[list];
    if (given === undefined) continue;
    const bad = validateList(list, given, context);
    if (bad) return bad;
    const field = listField(mode, list);
    const legacy = normalisePatternList(given);
    const explicit = lists[field];
    if (explicit !== undefined && !sameList(explicit, legacy)) {
      return {
        ok: false,
        code: 'conflicting_lists',
        reason: `'${list}' is the ${mode} mode's list and disagrees with '${field}' in the same request: send one of them`,
        field: list,
      };
    }
    lists[field] = legacy;
  }
  const next = normaliseConfig({ ...base, ...lists, mode });
  const changed = next.mode !== base.mode || MODE_LIST_FIELDS.some((f) => !sameList(next[f], base[f]));
  return { ok: true, config: next, changed, modeChanged: next.mode !== base.mode, activeListsChanged: !sameActiveLists(base, next) };
}

export interface DroppedPattern {
  field: ModeListField;
  pattern: string;
  reason: string;
}

/**
 * Reads a stored (or legacy, or hand-edited) configuration. Accepts the current shape (see schema.ts), or an older one with
 * only `mode`, `exclude` and `include` (taken as the active mode's lists). A missing per-mode list gets its
 * default. Patterns that no longer validate are dropped and reported, never silently kept or lost.
 */
export function parseFilterConfig(
  value: unknown,
): { ok: true; config: FilterConfig; dropped: DroppedPattern[] } | { ok: false; code: 'invalid_config'; reason: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, code: 'invalid_config', reason: 'filter configuration must be an object' };
  }
  const v = value as Record<string, unknown>;
  const mode = v.mode ?? 'blacklist';
  if (mode !== 'blacklist' && mode !== 'whitelist') {
    return { ok: false, code: 'invalid_config', reason: `mode must be 'blacklist' or 'whitelist', got ${JSON.stringify(mode)}` };
  }
  const defaults = defaultFilterConfig();
  const readList = (key: string): string[] | null | undefined => {
    const list = v[key];
    if (list === undefined) return undefined;
    if (!Array.isArray(list) || !list.every((p) => typeof p === 'string')) return null;
    return list as string[];
  };
  const out: Record<ModeListField, string[]> = {
    blacklist_exclude: [],
    blacklist_include: [],
    whitelist_include: [],
    whitelist_exclude: [],
  };
  const dropped: DroppedPattern[] = [];
  for (const field of MODE_LIST_FIELDS) {
    let list = readList(field);
    if (list === null) return { ok: false, code: 'invalid_config', reason: `${field} must be an array of strings` };
    if (list === undefined && field.startsWith(mode)) {
      const legacy = readList(field.endsWith('exclude') ? 'exclude' : 'include');
      if (legacy === null) return { ok: false, code: 'invalid_config', reason: `${field.endsWith('exclude') ? 'exclude' : 'include'} must be an array of strings` };
      list = legacy;
    }
    const kept: string[] = [];
    for (const p of list ?? defaults[field]) {
      const check = validatePattern(p);
      if (check.ok) kept.push(check.pattern);
      else dropped.push({ field, pattern: p, reason: check.reason });
    }
    out[field] = kept.slice(0, MAX_PATTERNS_PER_LIST);
  }
  const config = normaliseConfig({ mode, exclude: [], include: [], ...out });
  if (!Value.Check(FilterConfigSchema, config)) {
    return { ok: false, code: 'invalid_config', reason: 'filter configuration does not match its schema' };
  }
  return { ok: true, config, dropped };
}
