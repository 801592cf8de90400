import type { Logger } from '../logger.js';
import type { ConfigRepository } from '../store/repositories/config.repository.js';
import { parseFilterConfig } from './config.js';
import { defaultFilterConfig } from './defaults.js';
import { compileFilter, type FilterDecision, type FilterMatcher } from './matcher.js';
import { findRoot, normaliseRelativePath } from './paths.js';
import type { EntryKind, FilterConfig, FilterMode } from './schema.js';
import path from 'node:path';

/** Stored in app_config under this key, as one JSON document. */
export const FILTERS_KEY = 'filters';

export type FilterListener = (next: FilterConfig, previous: FilterConfig) => void;

/**
 * Owns the filter configuration: persisted, compiled once per change, and consulted by every scan, the
 * watcher and the queue. Listeners hear about each change so they can apply it.
 */
export class FilterService {
  #config: FilterConfig;
  #matcher: FilterMatcher;
  #listeners = new Set<FilterListener>();

  private constructor(
    private readonly repo: ConfigRepository,
    config: FilterConfig,
  ) {
    this.#config = config;
    this.#matcher = compileFilter(config);
  }

  static async load(repo: ConfigRepository, logger: Logger): Promise<FilterService> {
    const stored = (await repo.load(FILTERS_KEY))[FILTERS_KEY];
    if (stored === undefined) return new FilterService(repo, defaultFilterConfig());
    const parsed = parseFilterConfig(stored);
    if (!parsed.ok) {
      logger.warn({ reason: parsed.reason }, 'stored filter configuration is invalid; using the defaults');
      return new FilterService(repo, defaultFilterConfig());
    }
    for (const d of parsed.dropped) logger.warn({ dropped: d }, 'dropped an invalid stored filter pattern');
    return new FilterService(repo, parsed.config);
  }

  get config(): FilterConfig {
    return structuredClone(this.#config);
  }

  get matcher(): FilterMatcher {
    return this.#matcher;
  }

  /** Persists and activates a new configuration; listeners run after it is stored. */
  async replace(next: FilterConfig): Promise<void> {
    await this.repo.save({ [FILTERS_KEY]: next });
    const previous = this.#config;
    this.#config = structuredClone(next);
    this.#matcher = compileFilter(this.#config);
    for (const listener of this.#listeners) listener(this.config, previous);
  }

  subscribe(listener: FilterListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Decision for an absolute file path: relative to the deepest watched root containing it, else to its own
   * folder (so name patterns such as `*.pem` still apply to files indexed one by one).
   */
  decide(absolutePath: string, roots: readonly string[], kind: 'file' | 'directory' = 'file'): FilterDecision & { root: string } {
    const found = findRoot(roots, absolutePath);
    const root = found?.root ?? path.dirname(absolutePath);
    const relative = found?.relativePath ?? path.basename(absolutePath);
    return { ...this.#matcher.decide(relative, kind), root };
  }

  /**
   * POST /api/filters/test: the decision for `target`, an absolute path (judged from the deepest watched folder
   * containing it, else from its own folder, as decide() does) or a path relative to a watched folder. With
   * `mode`, as if that mode were active (its own lists). A relative path leaving its folder is refused.
   */
  explain(
    target: string,
    roots: readonly string[],
    options: { kind: EntryKind; mode?: FilterMode },
  ): { ok: true; decision: FilterDecision; root: string | null; watched: boolean; relativePath: string } | { ok: false; reason: string } {
    const matcher = options.mode === undefined || options.mode === this.#config.mode ? this.#matcher : compileFilter({ ...this.#config, mode: options.mode });
    if (path.isAbsolute(target)) {
      const found = findRoot(roots, target);
      const root = found?.root ?? path.dirname(target);
      const relativePath = found?.relativePath ?? path.basename(target);
      // A watched folder (or the file-system root) itself: walked, nothing above it is judged.
      const kind = relativePath === '' ? 'directory' : options.kind;
      return { ok: true, decision: matcher.decide(relativePath, kind), root, watched: found !== null, relativePath };
    }
    let relativePath: string;
    try {
      relativePath = normaliseRelativePath(target);
    } catch (err) {
      return { ok: false, reason: (err as Error).message };
    }
    const kind = relativePath === '' ? 'directory' : options.kind;
    return { ok: true, decision: matcher.decide(relativePath, kind), root: null, watched: false, relativePath };
  }
}
