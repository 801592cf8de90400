import type { Logger } from '../logger.js';
import type { QueryEmbedder } from '../models/query-embedder.js';
import type { QueryLane } from '../models/query-lanes.js';
import type { Settings } from '../settings/schema.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { CandidateFilters } from '../store/queries/filters.js';
import type { CandidateListing, KeywordRankingSettings } from '../store/keyword/query.js';
import type { ParsedQuery } from '../store/queries/parsed-query.js';
import type { FileSummary } from '../store/repositories/files.types.js';
import type { StoreApi } from '../store/store.js';
import { computeFacets, type SearchFacets } from './facets.js';
import { activeFusion } from '../models/fusion-profiles.js';
import { fuseHybrid, rankKeyword, rankSemantic, type FusedHit } from './fuse.js';
import { MAX_EXCLUDED, parseSearchQuery } from './query-parser.js';
import type { SnippetLane } from './snippet-lane.js';
import { applyCorrections, correctionNotice, searchesCorrections } from './typo.js';

export const DEFAULT_SEARCH_LIMIT = 50;
export const MAX_SEARCH_LIMIT = 1000;
/** Candidates each side contributes to the fusion (at least; more when more results are asked for). */
const MIN_CANDIDATES = 100;
/** Keyword candidates of a hybrid search, per result asked for: measured on SciFact train (bench/fusion-experiment.ts). */
const HYBRID_KEYWORD_CANDIDATES = 2;

export const SEARCH_MODES = ['hybrid', 'keyword', 'semantic'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** A search, checked at the edge: `filters` passed validateCandidateFilters (search/filters.ts). */
export interface SearchRequest {
  query: string;
  filters: CandidateFilters;
  /** 1..MAX_SEARCH_LIMIT; default DEFAULT_SEARCH_LIMIT. */
  limit?: number;
  /** Results to skip (paging); offset + limit at most MAX_SEARCH_LIMIT. Default 0. */
  offset?: number;
  mode?: SearchMode;
  /** Count the ranked files by extension, folder and modification period. */
  facets?: boolean;
}

export interface SearchResult {
  file: FileSummary;
  /** semantic_score + keyword_score. */
  relevance_score: number;
  /** The semantic side's share: weight × the best-chunk cosine above the model's floor (search/fuse.ts). */
  semantic_score: number;
  /** The keyword side's share: weight × (match bonus + BM25 over the best BM25), plus the exact-file-name bonus. */
  keyword_score: number;
  /** The raw measures behind them. */
  cosine: number | null;
  bm25: number | null;
  filename_match: 'exact' | 'stem' | null;
  snippet: string;
  /** [start, end) character ranges of `snippet` that match the query. */
  highlights: [number, number][];
}

export interface SearchResponse {
  results: SearchResult[];
  /** The first result's rank (0-based), as asked. */
  offset: number;
  /** More ranked results follow this page. */
  has_more: boolean;
  /** Counts of the ranked files when asked for (`facets: true`), else null. */
  facets: SearchFacets | null;
  mode: SearchMode;
  /** Set when the answer differs from what was asked (keyword-only because no embedder is available; misspelt words corrected). */
  notice: string | null;
  /** The query with each word no file contains replaced by the word one edit away that files hold; null when none. */
  did_you_mean: string | null;
  query: { text: string; terms: string[]; phrases: string[]; excluded: string[] };
  took_ms: number;
}

/** Why a search has no answer: the query has nothing to look for, or semantic search was asked and is unavailable. */
export type SearchFailure = { ok: false; code: 'no_search_terms' | 'too_many_exclusions' | 'semantic_unavailable'; reason: string };
export type SearchOutcome = { ok: true; response: SearchResponse } | SearchFailure;

export interface SearchServiceDeps {
  store: StoreApi;
  settings: SettingsService;
  logger: Logger;
  /** The query embedder (waiting while it loads), or null with the reason when semantic search is unavailable. */
  embedder: () => Promise<QueryLane>;
  /** Cuts the results' snippets off the main thread. */
  snippets: Pick<SnippetLane, 'snippets'>;
}

function keywordSettings(s: Settings['search']): KeywordRankingSettings {
  return {
    k1: s.bm25_k1,
    b: s.bm25_b,
    fieldWeights: { name: s.weight_name, keywords: s.weight_keywords, summary: s.weight_summary, content: s.weight_content },
    queryTermFrequency: false,
  };
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * A search stopped because every caller that asked for it went away (the web app's search-as-you-type drops the
 * request of each keystroke it supersedes): its remaining steps would only hold PGlite's one thread.
 */
export class SearchCancelled extends Error {
  constructor() {
    super('search cancelled: every request asking for it was closed');
    this.name = 'SearchCancelled';
  }
}

/** A search being answered, shared by the identical requests made meanwhile. */
interface RunningSearch {
  answer: Promise<SearchOutcome>;
  controller: AbortController;
  /** Requests still waiting for it; one without a signal waits for good. */
  waiting: number;
}

/**
 * Hybrid search: BM25F over the keyword index and best-chunk cosine over the vectors, each narrowed by the same
 * filters inside the database, fused as semantic_score + keyword_score (each normalised and weighted).
 */
export class SearchService {
  /**
   * Searches being answered now, by request. An identical request made meanwhile (a second tab, a client that
   * retries, a burst of the same query) shares that answer: one search's work on PGlite's single thread, not two.
   */
  readonly #inFlight = new Map<string, RunningSearch>();

  constructor(private readonly deps: SearchServiceDeps) {}

  /** Searches being answered now (identical requests sharing one count once): diagnostics and tests. */
  get running(): number {
    return this.#inFlight.size;
  }

  /**
   * Answers the request. `signal`: the caller has gone away (its HTTP request closed); once every request sharing
   * the search has, it stops before its next step and answers SearchCancelled (a rejection).
   */
  search(request: SearchRequest, signal?: AbortSignal): Promise<SearchOutcome> {
    const key = JSON.stringify(request);
    let running = this.#inFlight.get(key);
    if (!running && signal?.aborted) return Promise.reject(new SearchCancelled());
    if (!running) {
      const controller = new AbortController();
      const started: RunningSearch = { controller, waiting: 0, answer: this.#search(request, controller.signal) };
      started.answer = started.answer.finally(() => {
        if (this.#inFlight.get(key) === started) this.#inFlight.delete(key);
      });
      this.#inFlight.set(key, started);
      running = started;
    }
    const shared = running;
    shared.waiting++;
    if (signal) {
      const leave = () => {
        if (--shared.waiting > 0) return;
        // A request made from now on starts its own search instead of sharing a cancelled one.
        if (this.#inFlight.get(key) === shared) this.#inFlight.delete(key);
        shared.controller.abort(new SearchCancelled());
      };
      if (signal.aborted) leave();
      else {
        signal.addEventListener('abort', leave, { once: true });
        void shared.answer.then(
          () => signal.removeEventListener('abort', leave),
          () => signal.removeEventListener('abort', leave),
        );
      }
    }
    return shared.answer;
  }

  async #search(request: SearchRequest, cancelled: AbortSignal): Promise<SearchOutcome> {
    // Checked before each step: a step once begun runs to its end (a store call cannot be taken back).
    const goOn = () => cancelled.throwIfAborted();
    const started = performance.now();
    const parsed = parseSearchQuery(request.query);
    if (parsed.rankText === '') {
      return { ok: false, code: 'no_search_terms', reason: 'query must contain at least one word to search for (not only -excluded words)' };
    }
    if (parsed.excluded.length > MAX_EXCLUDED) {
      return {
        ok: false,
        code: 'too_many_exclusions',
        reason: `query may exclude at most ${MAX_EXCLUDED} words or phrases (-word, -"a phrase"); it excludes ${parsed.excluded.length}`,
      };
    }
    const { filters } = request;
    const settings = this.deps.settings.get().search;
    // Typo tolerance: free words no file contains, each with the word one edit away that files hold.
    let searched = parsed;
    let didYouMean: string | null = null;
    let corrected: string | null = null;
    if (settings.typo_correction !== 'off' && parsed.terms.length > 0) {
      goOn();
      const corrections = await this.deps.store.search.corrections(parsed.terms.join(' '));
      if (corrections.length > 0) {
        didYouMean = applyCorrections(request.query, corrections);
        if (searchesCorrections(settings.typo_correction, corrections)) {
          searched = { ...parseSearchQuery(didYouMean), nameKey: parsed.nameKey };
          corrected = correctionNotice(corrections, didYouMean);
        }
      }
    }
    const limit = request.limit ?? DEFAULT_SEARCH_LIMIT;
    const offset = request.offset ?? 0;
    // Facets count the fused list the ranking makes anyway: asking for them ranks no deeper (bench:search measures).
    const candidates = Math.max(offset + limit, MIN_CANDIDATES);

    let mode: SearchMode = request.mode ?? 'hybrid';
    let notice: string | null = null;
    const lane = mode === 'keyword' ? { embedder: null, reason: 'not asked' } : await this.deps.embedder();
    if (mode !== 'keyword' && !lane.embedder) {
      if (mode === 'semantic') return { ok: false, code: 'semantic_unavailable', reason: `Semantic search is unavailable: ${lane.reason}` };
      mode = 'keyword';
      notice = `Keyword-only results: semantic search is unavailable (${lane.reason})`;
    }

    const keywordLimit = mode === 'hybrid' ? candidates * HYBRID_KEYWORD_CANDIDATES : candidates;
    // A hybrid search's two sides take their candidates from one listing of its rare phrases and narrow filters
    // (store/keyword/candidates.ts), read once instead of once a side.
    goOn();
    const listing = mode === 'hybrid' && narrows(searched, filters) ? await this.deps.store.search.candidates(searched, filters) : undefined;
    // The semantic side first: its candidates the keyword top k leaves out still get their exact BM25 (a file with
    // a query word is ranked by it), in the keyword call's own pass over the postings instead of a second one.
    const semanticHits = mode === 'keyword' || !lane.embedder ? [] : await this.#semantic(lane.embedder, searched, filters, candidates, listing, goOn);
    goOn();
    const { hits: keywordHits, also } =
      mode === 'semantic'
        ? { hits: [], also: [] }
        : await this.deps.store.search.keyword(searched, {
            filters,
            settings: keywordSettings(settings),
            limit: keywordLimit,
            ...(semanticHits.length > 0 ? { alsoIds: semanticHits.map((h) => h.id) } : {}),
            ...(listing ? { listing } : {}),
          });
    const tiers = new Map(keywordHits.filter((h) => h.tier > 0).map((h) => [h.id, h.tier]));
    const keyword = [...keywordHits, ...also].filter((h) => h.score > 0).map((h) => [h.id, h.score] as const);
    const semantic = semanticHits.map((h) => [h.id, h.score] as const);
    let fused: FusedHit[];
    if (mode === 'keyword') fused = rankKeyword(keyword, tiers);
    else if (mode === 'semantic') fused = rankSemantic(semantic);
    else {
      const semanticMissing = semanticHits.length >= candidates ? (semanticHits[semanticHits.length - 1]?.score ?? null) : null;
      const fusion = activeFusion(lane.embedder?.identity ?? null, { semantic: settings.semantic_weight, keyword: settings.keyword_weight });
      fused = fuseHybrid({ semantic, keyword, tiers, semanticMissing }, fusion.profile);
    }
    const page = fused.slice(offset, offset + limit);
    goOn();
    const [described, facts] = await Promise.all([
      this.deps.store.search.describe(page.map((h) => h.id), searched.rankText),
      request.facets ? this.deps.store.search.facts(fused.map((h) => h.id)) : null,
    ]);
    const rows = new Map(described.files.map((r) => [r.id, r]));
    const shown = page.flatMap((hit) => {
      const row = rows.get(hit.id);
      return row ? [{ hit, row }] : []; // a file removed between the two queries is left out
    });
    goOn();
    const snippets = await this.deps.snippets.snippets(
      shown.map(({ row }) => ({ text: row.content_head, summary: row.summary })),
      described.lexemes,
    );

    const results: SearchResult[] = shown.map(({ hit, row }, i) => {
      const semantic = round(hit.semanticPart);
      const keyword = round(hit.keywordPart);
      const { content_head: _text, ...file } = row;
      const cut = snippets[i]!;
      return {
        file,
        relevance_score: round(semantic + keyword),
        semantic_score: semantic,
        keyword_score: keyword,
        cosine: hit.semantic === null ? null : round(hit.semantic),
        bm25: hit.keyword === null ? null : round(hit.keyword),
        filename_match: hit.tier === 2 ? 'exact' : hit.tier === 1 ? 'stem' : null,
        snippet: cut.text,
        highlights: cut.highlights,
      };
    });
    return {
      ok: true,
      response: {
        results,
        offset,
        has_more: fused.length > offset + limit,
        facets: facts ? computeFacets(facts, filters.directory !== undefined ? { directory: filters.directory } : {}) : null,
        mode,
        notice: [notice, corrected].filter((n) => n !== null).join('; ') || null,
        did_you_mean: didYouMean,
        query: { text: request.query, terms: parsed.terms, phrases: parsed.phrases, excluded: parsed.excluded },
        took_ms: Math.round((performance.now() - started) * 10) / 10,
      },
    };
  }

  async #semantic(
    embedder: QueryEmbedder,
    parsed: ParsedQuery,
    filters: CandidateFilters,
    limit: number,
    listing: CandidateListing | undefined,
    goOn: () => void,
  ) {
    goOn();
    const vector = await embedder.embed(parsed.rankText);
    if (vector.every((x) => x === 0)) return []; // no known word: the vector has no direction
    goOn();
    return this.deps.store.search.semantic({
      query: parsed,
      filters,
      vector,
      model: embedder.identity,
      dimension: embedder.info.dimension,
      limit,
      ...(listing ? { listing } : {}),
    });
  }
}

/** Whether the query's phrases or the filters may narrow the candidates (something to list). */
function narrows(query: ParsedQuery, filters: CandidateFilters): boolean {
  return query.phrases.length > 0 || Object.values(filters).some((v) => v !== undefined && !(Array.isArray(v) && v.length === 0));
}

/** The snippet of a result: cut from its text, or from its summary when the text has no words (e.g. an image). */

