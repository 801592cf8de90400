import Type, { type Static } from 'typebox';
import { PatternBodySchema } from '../../filters/schema.js';
import type { FilterConfig, FilterDecisionBody } from '../../filters/schema.js';
import { MAX_PATTERN_LENGTH } from '../../filters/pattern.js';

/**
 * POST and DELETE /api/filters/pattern: the body of src/filters/schema.ts, except that an empty pattern gets
 * past the schema so that it is refused like any other bad pattern (`invalid_pattern`, with the reason).
 */
export const PatternRequestBody = Type.Object(
  { ...PatternBodySchema.properties, pattern: Type.String({ maxLength: MAX_PATTERN_LENGTH, description: 'a glob, see docs/filters.md' }) },
  { additionalProperties: false },
);
export type PatternRequestBody = Static<typeof PatternRequestBody>;

/** The answer of every endpoint that changes or applies the filters (PUT config, pattern, apply, reset). */
export interface FilterChangeResponse {
  success: true;
  message: string;
  /** What changed: 'mode' and/or per-mode list fields ([] when nothing did, and for POST /apply). */
  changed: string[];
  /** The index was brought in line with the configuration by this request. */
  applied: boolean;
  /** Files that left the index (already gone when the answer arrives). */
  removed: number;
  /** Files in watched folders queued for indexing by run `run_id`. */
  queued: number;
  run_id: string | null;
  config: FilterConfig;
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
}
