/**
 * TypeBox schemas of the filter configuration (the README's Filters section): the stored value and a change to
 * it. They check shape only (`additionalProperties: false`, so a misspelt field is refused, never ignored);
 * pattern syntax is checked by validatePattern (config.ts), which gives reasons. The /api/filters request and
 * answer bodies are built from these beside their routes (http/routes/filters.schemas.ts).
 */
import { Type } from '#typebox';
import type { Static } from '#typebox';
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

/** The configuration as stored and as returned by GET /api/filters/config. */
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
 * A change to the configuration. Every field is optional; an empty change changes nothing.
 * - `mode` switches the active mode; both modes' lists are kept.
 * - Any of the four per-mode lists replaces that list whole.
 * - `exclude` / `include` (legacy) replace the lists of the mode in force after the change; sent together with
 *   the matching per-mode list they must hold the same patterns (else `conflicting_lists`).
 */
export const FilterConfigUpdateSchema = Type.Object(
  {
    mode: Type.Optional(FilterModeSchema),
    exclude: Type.Optional(PatternListSchema),
    include: Type.Optional(PatternListSchema),
    blacklist_exclude: Type.Optional(PatternListSchema),
    blacklist_include: Type.Optional(PatternListSchema),
    whitelist_include: Type.Optional(PatternListSchema),
    whitelist_exclude: Type.Optional(PatternListSchema),
  },
  { additionalProperties: false },
);
export type FilterConfigUpdate = Static<typeof FilterConfigUpdateSchema>;

/** What one change did, as the API answers it and `filters_changed` publishes it. */
export const FilterChangeSchema = Type.Object(
  {
    changed: Type.Array(Type.String(), { description: "What changed: 'mode' and/or per-mode list fields ([] when nothing did, and for an apply alone)" }),
    applied: Type.Boolean({ description: 'The index was brought in line with the configuration by this change' }),
    removed: Type.Integer({ minimum: 0, description: 'Files that left the index (already gone when the answer arrives)' }),
    queued: Type.Integer({ minimum: 0, description: 'Files in watched folders queued for indexing by run `run_id`' }),
    run_id: Type.Union([Type.String(), Type.Null()]),
    config: FilterConfigSchema,
  },
  { additionalProperties: false },
);
export type FilterChange = Static<typeof FilterChangeSchema>;
