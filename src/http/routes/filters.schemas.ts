/**
 * Request and answer bodies of the /api/filters endpoints, built from the filter configuration's own schemas
 * (filters/schema.ts). Request bodies refuse unknown fields, so a misspelt one is a 400, never ignored.
 */
import Type, { type Static } from '#typebox';
import type { FilterDecision } from '../../filters/matcher.js';
import { MAX_PATTERN_LENGTH } from '../../filters/pattern.js';
import {
  EntryKindSchema,
  FilterChangeSchema,
  FilterConfigSchema,
  FilterConfigUpdateSchema,
  FilterModeSchema,
  PatternListNameSchema,
} from '../../filters/schema.js';
import { Nullable, SuccessFields, type Operation } from './common.schemas.js';

const ApplyImmediately = Type.Optional(
  Type.Boolean({
    default: true,
    description: 'true (default): newly excluded files leave the index and newly included ones are queued at once; false: nothing happens to the index until POST /api/filters/apply',
  }),
);

/** PUT /api/filters/config: a configuration change, and whether to apply it to the index now. */
export const PutFilterConfigBody = Type.Object(
  { ...FilterConfigUpdateSchema.properties, apply_immediately: ApplyImmediately },
  { additionalProperties: false },
);
export type PutFilterConfigBody = Static<typeof PutFilterConfigBody>;

/**
 * POST and DELETE /api/filters/pattern: one pattern into or out of one list. `mode` defaults to the current mode
 * (so a pattern can be prepared for the other mode without switching). An empty pattern gets past the schema so
 * that it is refused like any other bad pattern (`invalid_pattern`, with the reason).
 */
export const PatternBody = Type.Object(
  {
    pattern: Type.String({ maxLength: MAX_PATTERN_LENGTH, description: 'a glob, see docs/filters.md' }),
    list: PatternListNameSchema,
    mode: Type.Optional(FilterModeSchema),
    apply_immediately: ApplyImmediately,
  },
  { additionalProperties: false },
);
export type PatternBody = Static<typeof PatternBody>;

/**
 * POST /api/filters/test: would this path be indexed, and which pattern decided? `path` is absolute (inside a
 * watched folder) or relative to a watched folder. `kind` defaults to what is on disk (a file when the path does
 * not exist). `mode` evaluates as if that mode were active.
 */
export const TestPathBody = Type.Object(
  {
    path: Type.String({ minLength: 1, maxLength: 4096 }),
    kind: Type.Optional(EntryKindSchema),
    mode: Type.Optional(FilterModeSchema),
  },
  { additionalProperties: false },
);
export type TestPathBody = Static<typeof TestPathBody>;

/** The pattern that decided, and the relative path (the file, or a folder above it) it matched. */
export const DecidedBySchema = Type.Object(
  {
    list: PatternListNameSchema,
    pattern: Type.String(),
    matched_path: Type.String(),
  },
  { additionalProperties: false },
);

/** The explanation the /test endpoint returns (snake_case form of FilterDecision, see filters/matcher.ts). */
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

/** The answer of every endpoint that changes or applies the filters (PUT config, pattern, apply, reset). */
export const FilterChangeResponse = Type.Object({ ...SuccessFields, ...FilterChangeSchema.properties }, { additionalProperties: false, title: 'FilterChange' });
export type FilterChangeResponse = Static<typeof FilterChangeResponse>;

/** POST /api/filters/test. */
export const FilterTestResponse = Type.Object(
  {
    path: Type.String({ description: 'The path as given' }),
    kind: EntryKindSchema,
    root: Nullable(Type.String({ description: 'The folder the path was judged from: its watched folder, else its own folder; null for a relative path' })),
    watched: Type.Boolean({ description: 'root is a watched folder' }),
    relative_path: Type.String({ description: "The path the patterns were matched against ('' for a watched folder itself)" }),
    ...FilterDecisionSchema.properties,
    excluded_by_content: Nullable(
      Type.Object(
        {
          code: Type.String({ description: 'Why the content check keeps it out, e.g. private_key' }),
          reason: Type.String(),
          checked_at: Nullable(Type.String({ format: 'date-time' })),
        },
        { additionalProperties: false, description: 'Set when the content check keeps the file out of the index whatever the patterns say' },
      ),
    ),
  },
  { additionalProperties: false, title: 'FilterTest' },
);
export type FilterTestResponse = Static<typeof FilterTestResponse>;

const CONFIG = { description: 'The configuration', schema: FilterConfigSchema };
const CHANGE = { description: 'What changed and what the index did', schema: FilterChangeResponse };
const PATTERN_ERRORS = '400 `invalid_pattern` (with `field` and `pattern`) for a pattern that is empty or can never match as written, saying why.';

export const filtersOperations: Operation[] = [
  { method: 'get', path: '/api/filters/config', tag: 'filters', summary: 'The filter configuration', answers: { 200: CONFIG } },
  {
    method: 'put',
    path: '/api/filters/config',
    tag: 'filters',
    summary: 'Change the filter configuration',
    description: `Every field optional: the mode, any of the four per-mode lists (each replaces that list), or exclude/include for the lists of the mode in force. ${PATTERN_ERRORS}`,
    body: PutFilterConfigBody,
    answers: { 200: CHANGE },
  },
  {
    method: 'post',
    path: '/api/filters/pattern',
    tag: 'filters',
    summary: 'Add a pattern to a list',
    description: `A pattern already in the list (ignoring case) changes nothing. ${PATTERN_ERRORS}`,
    body: PatternBody,
    answers: { 200: CHANGE },
  },
  {
    method: 'delete',
    path: '/api/filters/pattern',
    tag: 'filters',
    summary: 'Remove a pattern from a list',
    description: '404 `pattern_not_found` when it is not in that list.',
    body: PatternBody,
    answers: { 200: CHANGE },
  },
  {
    method: 'post',
    path: '/api/filters/apply',
    tag: 'filters',
    summary: 'Bring the index in line with the configuration',
    description: 'After changes made with apply_immediately false.',
    answers: { 200: CHANGE },
  },
  { method: 'get', path: '/api/filters/defaults', tag: 'filters', summary: 'The default configuration', answers: { 200: CONFIG } },
  { method: 'post', path: '/api/filters/reset', tag: 'filters', summary: 'Restore and apply the defaults', answers: { 200: CHANGE } },
  {
    method: 'post',
    path: '/api/filters/test',
    tag: 'filters',
    summary: 'Why is a file (not) indexed?',
    description: 'The decision for a path (absolute, or relative to a watched folder) and the pattern that made it. 400 `invalid_path` for a relative path that leaves its folder.',
    body: TestPathBody,
    answers: { 200: { description: 'The decision', schema: FilterTestResponse } },
  },
];
