/**
 * Request and answer bodies of the /api/filters endpoints, built from the filter configuration's own schemas
 * (filters/schema.ts). Request bodies refuse unknown fields, so a misspelt one is a 400, never ignored.
 */
import Type, { type Static } from 'typebox';
import type { FilterDecision } from '../../filters/matcher.js';
import { MAX_PATTERN_LENGTH } from '../../filters/pattern.js';
import {
  EntryKindSchema,
  FilterConfigUpdateSchema,
  FilterModeSchema,
  PatternListNameSchema,
  type FilterChange,
} from '../../filters/schema.js';

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
export interface FilterChangeResponse extends FilterChange {
  success: true;
  message: string;
}

/** POST /api/filters/test. */
export interface FilterTestResponse extends FilterDecisionBody {
  /** The path as given. */
  path: string;
  kind: 'file' | 'directory';
  /** The folder the path was judged from: its watched folder, else its own folder; null for a relative path. */
  root: string | null;
  /** True when `root` is a watched folder. */
  watched: boolean;
  /** The path the patterns were matched against ('' for a watched folder itself). */
  relative_path: string;
  /** Set when the content check keeps the file out of the index whatever the patterns say. */
  excluded_by_content: { code: string; reason: string; checked_at: string | null } | null;
}
