/**
 * The changes the /api/filters endpoints make: validate (config.ts), persist (FilterService.replace), apply
 * to the index when asked (FilterApplier) and tell event clients (filters_changed). One change at a time, so
 * two requests never both edit the same base configuration or apply over each other.
 */
import type { EventBus } from '../events/bus.js';
import { addPattern, applyConfigUpdate, MODE_LIST_FIELDS, removePattern, sameActiveLists } from './config.js';
import type { FilterConfigFailure, PatternChange, PatternChangeResult } from './config.js';
import { defaultFilterConfig } from './defaults.js';
import type { FilterService } from './filter.service.js';
import type { FilterChange, FilterConfig, FilterConfigUpdate } from './schema.js';

/** What bringing the index in line with the configuration did (indexing/filter-run.ts does it). */
export interface ApplyOutcome {
  /** Files that left the index (they are gone when apply() resolves). */
  removed: number;
  /** Files in watched folders being indexed by the run. */
  queued: number;
  runId: string;
}

/** The port through which a change reaches the index (indexing/filter-runner.ts). */
export interface FilterApplier {
  /** Applies the current configuration; `previous` (the one just replaced) lets it do only what the change needs. */
  apply(options?: { previous?: FilterConfig }): Promise<ApplyOutcome>;
}

/** Whether a change is applied to the index at once (the API's `apply_immediately`, default true). */
export interface EditOptions {
  apply: boolean;
}

export interface EditResult extends FilterChange {
  ok: true;
  /** One sentence for a person: what changed and what happened to the index. */
  message: string;
}

export interface FilterEditorDeps {
  filters: Pick<FilterService, 'config' | 'replace'>;
  applier: FilterApplier;
  /** Watched folders, so that an absolute path typed as a pattern is recognised and refused. */
  jobs: { roots(): string[] };
  bus: EventBus;
}

/** The fields of `next` that differ from `previous` ('mode', per-mode lists; case-only edits count). */
export function changedFields(previous: FilterConfig, next: FilterConfig): string[] {
  const out: string[] = previous.mode === next.mode ? [] : ['mode'];
  for (const field of MODE_LIST_FIELDS) {
    const a = previous[field];
    const b = next[field];
    if (a.length !== b.length || a.some((p, i) => p !== b[i])) out.push(field);
  }
  return out;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

function applySummary(outcome: ApplyOutcome): string {
  return `${plural(outcome.removed, 'file', 'files')} left the index, ${plural(outcome.queued, 'file', 'files')} queued for indexing (run ${outcome.runId})`;
}

export class FilterEditor {
  #chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: FilterEditorDeps) {}

  /** PUT /api/filters/config: optional mode and whole lists; applied when the active lists changed. */
  update(change: FilterConfigUpdate, options: EditOptions): Promise<EditResult | FilterConfigFailure> {
    return this.#serial(async () => {
      const previous = this.deps.filters.config;
      const result = applyConfigUpdate(previous, change, { watchedRoots: this.deps.jobs.roots() });
      if (!result.ok) return result;
      const what = result.changed ? `Filter configuration updated (mode ${result.config.mode})` : 'Filter configuration unchanged';
      return this.#commit(previous, result.config, result.activeListsChanged && options.apply, what);
    });
  }

  /** POST /api/filters/pattern. A pattern already in the list (ignoring case) is a success that changes nothing. */
  addPattern(change: PatternChange, options: EditOptions): Promise<EditResult | FilterConfigFailure> {
    return this.#pattern(change, options, 'add');
  }

  /** DELETE /api/filters/pattern. A pattern not in the list is `pattern_not_found`. */
  removePattern(change: PatternChange, options: EditOptions): Promise<EditResult | FilterConfigFailure> {
    return this.#pattern(change, options, 'remove');
  }

  /** POST /api/filters/reset: the default configuration, always applied (the index is cleaned up). */
  reset(): Promise<EditResult> {
    return this.#serial(async () => {
      const previous = this.deps.filters.config;
      const next = defaultFilterConfig();
      const what = changedFields(previous, next).length > 0 ? 'Filter configuration reset to the defaults' : 'Filter configuration already at the defaults';
      return this.#commit(previous, next, true, what);
    });
  }

  /** POST /api/filters/apply: brings the index in line with the configuration as it is. */
  apply(): Promise<EditResult> {
    return this.#serial(async () => {
      const outcome = await this.deps.applier.apply();
      const change = { changed: [], applied: true, removed: outcome.removed, queued: outcome.queued, run_id: outcome.runId, config: this.deps.filters.config };
      return { ok: true as const, message: `Filters applied: ${applySummary(outcome)}`, ...change };
    });
  }

  #pattern(change: PatternChange, options: EditOptions, op: 'add' | 'remove'): Promise<EditResult | FilterConfigFailure> {
    return this.#serial(async () => {
      const previous = this.deps.filters.config;
      const context = { watchedRoots: this.deps.jobs.roots() };
      const result: PatternChangeResult = op === 'add' ? addPattern(previous, change, context) : removePattern(previous, change, context);
      if (!result.ok) return result;
      const where = `${result.mode} ${change.list}`;
      const given = change.pattern.trim();
      const what = op === 'remove'
        ? `Removed '${result.pattern}' from ${where}`
        : result.changed
          ? `Added '${result.pattern}' to ${where}`
          : `'${given}' is already in ${where}${result.pattern !== given ? ` as '${result.pattern}' (patterns ignore case)` : ''}: nothing changed`;
      return this.#commit(previous, result.config, result.changed && result.affectsActive && options.apply, what);
    });
  }

  /** Persists `next` (when it differs), applies it when asked, publishes filters_changed. */
  async #commit(previous: FilterConfig, next: FilterConfig, apply: boolean, what: string): Promise<EditResult> {
    const changed = changedFields(previous, next);
    if (changed.length > 0) await this.deps.filters.replace(next);
    const outcome = apply ? await this.deps.applier.apply({ previous }) : null;
    const config = this.deps.filters.config;
    const change: FilterChange = {
      changed,
      applied: outcome !== null,
      removed: outcome?.removed ?? 0,
      queued: outcome?.queued ?? 0,
      run_id: outcome?.runId ?? null,
      config,
    };
    if (changed.length > 0) this.deps.bus.publish('filters_changed', { mode: config.mode, ...change });
    let message = what;
    if (outcome) message += `; ${applySummary(outcome)}`;
    else if (!sameActiveLists(previous, next)) message += '; not applied: the index changes with POST /api/filters/apply';
    else if (changed.length > 0) message += `; the ${config.mode} lists in force are unchanged, so the index is too`;
    return { ok: true, message, ...change };
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#chain.then(fn, fn);
    this.#chain = next.catch(() => undefined);
    return next;
  }
}
