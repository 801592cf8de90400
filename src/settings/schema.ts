import { availableParallelism } from 'node:os';
import Type, { type Static, type TSchema } from '#typebox';
import { CHECK_INTERVAL_MAX_SECONDS, CHECK_INTERVAL_MIN_SECONDS, MAX_RULES, SchedulerRuleInput } from './scheduler-schema.js';

/**
 * The settings object of GET /api/settings/, grouped by section. This schema is the single source of
 * truth: the dotted keys accepted by PUT, their validation, the defaults and the documented ranges all derive
 * from it. Add a key here and it is settable, persisted and reported.
 */
export const SettingsSchema = Type.Object(
  {
    summarizer: Type.Object(
      {
        provider: Type.Union([Type.Literal('local'), Type.Literal('ollama'), Type.Literal('openai')], {
          default: 'local',
          description: "Who writes title/summary/keywords: 'local' (extractive, offline), 'ollama' or 'openai' (any OpenAI-compatible endpoint)",
        }),
        model: Type.String({
          minLength: 1,
          maxLength: 200,
          default: 'extractive',
          description: "Model name for the provider ('extractive' for local; e.g. 'llama3.2' for ollama)",
        }),
        base_url: Type.Union([Type.String({ minLength: 1, maxLength: 500, pattern: '^https?://' }), Type.Null()], {
          default: null,
          description: 'Endpoint of the ollama/openai provider; null uses the provider default',
        }),
        timeout_seconds: Type.Number({ minimum: 1, maximum: 600, default: 30, description: 'Per-file timeout of a remote summarizer call' }),
      },
      { additionalProperties: false },
    ),
    queue: Type.Object(
      {
        cooldown_seconds: Type.Number({ minimum: 0, maximum: 86400, default: 5, description: 'Debounce: how long a changed file must stay quiet before it is processed' }),
        max_concurrency: Type.Integer({ minimum: 1, maximum: 256, default: 4, description: 'Files processed at once: the pipeline threads (default: one fewer than the CPU cores this process may use, at least one; see defaultConcurrency)' }),
        max_retries: Type.Integer({ minimum: 0, maximum: 20, default: 3, description: 'Retries (with exponential backoff) before a file is marked failed' }),
      },
      { additionalProperties: false },
    ),
    indexing: Type.Object(
      {
        max_file_size_mb: Type.Number({ minimum: 0.001, maximum: 102400, default: 100, description: 'Files larger than this are indexed by name, path, size and dates only (no content)' }),
        max_text_chars: Type.Integer({ minimum: 1000, maximum: 50_000_000, default: 2_000_000, description: 'Extracted text beyond this many characters is cut (the file is marked truncated)' }),
        file_timeout_seconds: Type.Number({ minimum: 1, maximum: 3600, default: 120, description: 'A file whose processing takes longer is stopped and recorded as failed' }),
      },
      { additionalProperties: false },
    ),
    search: Type.Object(
      {
        bm25_k1: Type.Number({ minimum: 0, maximum: 5, default: 1.2, description: 'BM25 term-frequency saturation (k1)' }),
        bm25_b: Type.Number({ minimum: 0, maximum: 1, default: 0.75, description: 'BM25 length normalisation (b)' }),
        weight_name: Type.Number({ minimum: 0, maximum: 100, default: 4, description: 'BM25F weight of the file name and title' }),
        weight_keywords: Type.Number({ minimum: 0, maximum: 100, default: 1.25, description: 'BM25F weight of the keywords' }),
        weight_summary: Type.Number({ minimum: 0, maximum: 100, default: 1.25, description: 'BM25F weight of the summary' }),
        weight_content: Type.Number({ minimum: 0.01, maximum: 100, default: 1, description: 'BM25F weight of the content (above 0, so some field always counts)' }),
        semantic_weight: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
          default: null,
          description: "Weight of the semantic side in relevance_score; null: the active model's own (GET /api/status/ embedder.fusion)",
        }),
        keyword_weight: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
          default: null,
          description: "Weight of the keyword side in relevance_score; null: the active model's own",
        }),
        typo_correction: Type.Union([Type.Literal('search'), Type.Literal('suggest'), Type.Literal('off')], {
          default: 'search',
          description: "A query word no file contains, one edit from a word some file holds: 'search' the corrected words (and say so), only 'suggest' them (did_you_mean), or 'off'",
        }),
      },
      { additionalProperties: false },
    ),
    scheduler: Type.Object(
      {
        enabled: Type.Boolean({ default: false, description: 'Pause the queue when system conditions do not satisfy the rules' }),
        combine_mode: Type.Union([Type.Literal('ALL'), Type.Literal('ANY')], { default: 'ALL', description: 'ALL: every enabled rule must pass; ANY: at least one' }),
        check_interval_seconds: Type.Integer({ minimum: CHECK_INTERVAL_MIN_SECONDS, maximum: CHECK_INTERVAL_MAX_SECONDS, default: 60, description: 'Seconds between condition checks' }),
        unavailable_policy: Type.Union([Type.Literal('fail'), Type.Literal('pass')], {
          default: 'fail',
          description: "How a rule whose metric this machine cannot read counts: 'fail' (does not pass) or 'pass'; shown as unavailable either way",
        }),
        // The scheduler's own rule schema (one variant per rule type); SchedulerService adds its precise messages.
        rules: Type.Array(SchedulerRuleInput, { maxItems: MAX_RULES, default: [], description: 'Scheduler rules (see the scheduler section of the README)' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export type Settings = Static<typeof SettingsSchema>;
export type SectionName = keyof Settings;

export interface SettingDefinition {
  key: string; // dotted: 'queue.cooldown_seconds'
  section: string;
  name: string;
  schema: TSchema;
}

interface ObjectSchemaLike {
  properties: Record<string, TSchema>;
}

/** Every settable key, derived from the schema (section.key). */
export const settingDefinitions: ReadonlyMap<string, SettingDefinition> = new Map(
  Object.entries((SettingsSchema as unknown as ObjectSchemaLike).properties).flatMap(([section, sectionSchema]) =>
    Object.entries((sectionSchema as unknown as ObjectSchemaLike).properties).map(([name, schema]) => {
      const key = `${section}.${name}`;
      return [key, { key, section, name, schema }] as const;
    }),
  ),
);

/**
 * Pipeline threads by default: one fewer than the cores this process may use, at least one. During a bulk run the
 * store's one thread is busy about as long as the run lasts (a file's write, its keyword index and vector graph,
 * is half of a run's CPU), so it needs a core of its own, and a pipeline thread more than the cores left only adds
 * ~100 MB at the peak. The whole Debian documentation on 2 cores (README "Memory"): one thread with four files in
 * flight against two threads (IN_FLIGHT_PER_THREAD), measured in the same session.
 */
export function defaultConcurrency(cores: number = availableParallelism()): number {
  return Math.max(1, Math.min(cores - 1, 256));
}

/** Defaults from the schema's `default` annotations; the concurrency default is defaultConcurrency(). */
export function defaultSettings(): Settings {
  const result: Record<string, Record<string, unknown>> = {};
  for (const def of settingDefinitions.values()) {
    const annotated = (def.schema as { default?: unknown }).default;
    (result[def.section] ??= {})[def.name] = structuredClone(annotated);
  }
  const settings = result as unknown as Settings;
  settings.queue.max_concurrency = defaultConcurrency();
  return settings;
}
