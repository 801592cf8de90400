/**
 * TypeBox schemas for the filter configuration (SPEC 2.8) and the bodies of the /api/filters endpoints.
 * Request bodies set `additionalProperties: false` so a misspelt field is a 400, never silently ignored.
 * Schemas check shape only; pattern syntax is checked by validatePattern (config.ts), which gives reasons.
 */
import { Type } from 'typebox';
import type { Static } from 'typebox';
import type { FilterDecision } from './matcher.js';
import { MAX_PATTERN_LENGTH } from './pattern.js';

export const MAX_PATTERNS_PER_LIST = 1000;

export const FilterModeSchema = Type.Union([Type.Literal('blacklist'), Type.Literal('whitelist')], {
  description: "'blacklist': every file is indexed unless excluded; 'whitelist': only included files are indexed",
});
export type FilterMode = Static<typeof FilterModeSchema>;

export const PatternListNameSchema = Type.Union([Type.Literal('exclude'), Type.Literal('include')]);
export type PatternListName = Static<typeof PatternListNameSchema>;

export const EntryKindSchema = Type.Union([Type.Literal('file'), Type.Literal('directory')]);
export type EntryKind = Static<typeof EntryKindSchema>;

export const PatternSchema = Type.String({ minLength: 1, maxLength: MAX_PATTERN_LENGTH, description: 'a glob, see docs/filters.md' });
export const PatternListSchema = Type.Array(PatternSchema, { maxItems: MAX_PATTERNS_PER_LIST });

/** The configuration as stored and as returned by GET /api/filters/config (SPEC 2.8). */
export const FilterConfigSchema = Type.Object(
  {
    mode: FilterModeSchema,
    /** Legacy: the active mode's exclude list (mirror of blacklist_exclude or whitelist_exclude). */
    exclude: PatternListSchema,
    /** Legacy: the active mode's include list (mirror of blacklist_include or whitelist_include). */
    include: PatternListSchema,
    blacklist_exclude: PatternListSchema,
    blacklist_include: PatternListSchema,
    whitelist_include: PatternListSchema,
    whitelist_exclude: PatternListSchema,
  },
  { additionalProperties: false },
);
export type FilterConfig = Static<typeof FilterConfigSchema>;

/** The four per-mode list fields, which are the source of truth (exclude/include only mirror them). */
export type ModeListField = 'blacklist_exclude' | 'blacklist_include' | 'whitelist_include' | 'whitelist_exclude';

/**
 * PUT /api/filters/config. Every field is optional; an empty body changes nothing.
 * - `mode` switches the active mode; both modes' lists are kept.
 * - `apply_immediately` (default true): newly excluded files leave the index and newly included ones are
 *   queued at once; with false, nothing happens to the index until POST /api/filters/apply.
 * - Any of the four per-mode lists replaces that list whole.
 * - `exclude` / `include` (legacy) replace the lists of the mode in force after this request; sending one
 *   together with the matching per-mode list is a 400 unless both hold the same patterns.
 */
export const PutFilterConfigBodySchema = Type.Object(
  {
    mode: Type.Optional(FilterModeSchema),
    apply_immediately: Type.Optional(Type.Boolean({ default: true })),
    exclude: Type.Optional(PatternListSchema),
    include: Type.Optional(PatternListSchema),
    blacklist_exclude: Type.Optional(PatternListSchema),
    blacklist_include: Type.Optional(PatternListSchema),
    whitelist_include: Type.Optional(PatternListSchema),
    whitelist_exclude: Type.Optional(PatternListSchema),
  },
  { additionalProperties: false },
);
export type PutFilterConfigBody = Static<typeof PutFilterConfigBodySchema>;

/**
 * POST and DELETE /api/filters/pattern: one pattern into or out of one list.
 * `mode` defaults to the current mode (so a pattern can be prepared for the other mode without switching).
 * `apply_immediately` (default true) as for PUT /api/filters/config.
 */
export const PatternBodySchema = Type.Object(
  {
    pattern: PatternSchema,
    list: PatternListNameSchema,
    mode: Type.Optional(FilterModeSchema),
    apply_immediately: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);
export type PatternBody = Static<typeof PatternBodySchema>;

/**
 * POST /api/filters/test: would this path be indexed, and which pattern decided?
 * `path` is absolute (inside a watched folder) or relative to a watched folder. `kind` defaults to what is
 * on disk (a file when the path does not exist). `mode` evaluates as if that mode were active.
 */
export const TestPathBodySchema = Type.Object(
  {
    path: Type.String({ minLength: 1, maxLength: 4096 }),
    kind: Type.Optional(EntryKindSchema),
    mode: Type.Optional(FilterModeSchema),
  },
  { additionalProperties: false },
);
export type TestPathBody = Static<typeof TestPathBodySchema>;

/** The pattern that decided, and the relative path (the file, or a folder above it) it matched. */
export const DecidedBySchema = Type.Object(
  {
    list: PatternListNameSchema,
    pattern: Type.String(),
    matched_path: Type.String(),
  },
  { additionalProperties: false },
);

/** The explanation the /test endpoint returns (snake_case form of FilterDecision, see matcher.ts). */
export const FilterDecisionSchema = Type.Object(
  {
    indexed: Type.Boolean(),
    mode: FilterModeSchema,
    decided_by: Type.Union([DecidedBySchema, Type.Null()]),
    reason: Type.String(),
  },
  { additionalProperties: false },
);
export type FilterDecisionBody = Static<typeof FilterDecisionSchema>;

/** The /test answer for a decision (the API's snake_case field names). */
export function decisionBody(decision: FilterDecision): FilterDecisionBody {
  const by = decision.decidedBy;
  return {
    indexed: decision.indexed,
    mode: decision.mode,
    decided_by: by ? { list: by.list, pattern: by.pattern, matched_path: by.matchedPath } : null,
    reason: decision.reason,
  };
}

/** POST /api/filters/apply (and the apply part of PUT/POST/DELETE/reset): what happened to the index. */
export const ApplyResultSchema = Type.Object(
  {
    removed: Type.Number({ description: 'indexed files that left the index' }),
    queued: Type.Number({ description: 'files in watched folders newly queued for indexing' }),
  },
  { additionalProperties: false },
);
export type ApplyResultBody = Static<typeof ApplyResultSchema>;
