import { createError, createErrorWith } from '../errors.js';
import type { SearchBody, SearchFilters, SearchMode } from '../http/routes/search.schemas.js';
import type { Logger } from '../logger.js';
import type { Settings } from '../settings/schema.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { SearchFileRow } from '../store/repositories/search.repository.js';
import type { StoreApi } from '../store/store.js';
import { validateCandidateFilters, type CandidateFilters } from './candidate-filters.js';
import { fuseScores, type FusionOptions } from './fuse.js';
import type { KeywordRankingSettings } from './keyword-query.js';
import { parseSearchQuery } from './query-parser.js';
import type { QueryEmbedder } from './query-embedder.js';
import { buildSnippet, TermMatcher, type Snippet } from './snippet.js';

export const DEFAULT_SEARCH_LIMIT = 50;
/** Candidates each side contributes to the fusion (at least; more when more results are asked for). */
const MIN_CANDIDATES = 100;

export interface SearchResult {
  file: {
    id: number;
    file_path: string;
    filename: string;
    extension: string;
    created: string | null;
    modified: string | null;
    accessed: string | null;
    title: string;
    summary: string;
    keywords: string[];
    size: number;
    status: 'indexed' | 'failed';
  };
  /** semantic_score + keyword_score. */
  relevance_score: number;
  /** semantic weight × min-max-normalised best-chunk cosine. */
  semantic_score: number;
  /** keyword weight × min-max-normalised BM25 (plus the exact-file-name bonus). */
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
  mode: SearchMode;
  /** Set when the answer differs from what was asked (e.g. keyword-only because no embedder is available). */
  notice: string | null;
  query: { text: string; terms: string[]; phrases: string[]; excluded: string[] };
  took_ms: number;
}

export type QueryLane = { embedder: QueryEmbedder } | { embedder: null; reason: string };

export interface SearchServiceDeps {
  store: StoreApi;
  settings: SettingsService;
  logger: Logger;
  /** The query embedder (waiting while it loads), or null with the reason when semantic search is unavailable. */
  embedder: () => Promise<QueryLane>;
}

function candidateFilters(directory: string | undefined, f: SearchFilters = {}): CandidateFilters {
  const list = (v: string | string[] | undefined) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]);
  const out: CandidateFilters = {};
  const extensions = list(f.extension);
  if (extensions) out.extensions = extensions;
  if (f.modified_after) out.modifiedAfter = f.modified_after;
  if (f.modified_before) out.modifiedBefore = f.modified_before;
  if (f.created_after) out.createdAfter = f.created_after;
  if (f.created_before) out.createdBefore = f.created_before;
  if (f.min_size !== undefined) out.sizeMin = f.min_size;
  if (f.max_size !== undefined) out.sizeMax = f.max_size;
  if (f.path) out.pathGlob = f.path;
  const keywords = list(f.keyword);
  if (keywords) out.keywords = keywords;
  if (directory !== undefined) out.directory = directory.length > 1 ? directory.replace(/\/+$/, '') : directory;
  return out;
}

/** API field names of the filter keys, for error messages. */
const FILTER_FIELD_NAMES: Record<keyof CandidateFilters, string> = {
  extensions: 'filters.extension',
  modifiedAfter: 'filters.modified_after',
  modifiedBefore: 'filters.modified_before',
  createdAfter: 'filters.created_after',
  createdBefore: 'filters.created_before',
  sizeMin: 'filters.min_size',
  sizeMax: 'filters.max_size',
  directory: 'directory',
  pathGlob: 'filters.path',
  keywords: 'filters.keyword',
};

function keywordSettings(s: Settings['search']): KeywordRankingSettings {
  return {
    k1: s.bm25_k1,
    b: s.bm25_b,
    fieldWeights: { name: s.weight_name, keywords: s.weight_keywords, summary: s.weight_summary, content: s.weight_content },
    queryTermFrequency: false,
  };
}

function fusionFor(mode: SearchMode, s: Settings['search']): FusionOptions {
  const side = (weight: number) => ({ weight, normalization: 'min-max' as const, missing: 'zero' as const });
  if (mode === 'keyword') return { semantic: side(0), keyword: side(1) };
  if (mode === 'semantic') return { semantic: side(1), keyword: side(0) };
  return { semantic: side(s.semantic_weight), keyword: side(s.keyword_weight) };
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * Hybrid search: BM25F over the keyword index and best-chunk cosine over the vectors, each narrowed by the same
 * filters inside the database, fused as semantic_score + keyword_score (each normalised and weighted).
 */
export class SearchService {
  constructor(private readonly deps: SearchServiceDeps) {}

  async search(body: SearchBody): Promise<SearchResponse> {
    const started = performance.now();
    const parsed = parseSearchQuery(body.query);
    if (parsed.rankText === '') {
      throw createError('invalid_request', 'query must contain at least one word to search for (not only -excluded words)');
    }
    if (body.directory !== undefined && !body.directory.startsWith('/')) {
      throw createError('invalid_request', `directory must be an absolute path, got '${body.directory}'`);
    }
    const check = validateCandidateFilters(candidateFilters(body.directory, body.filters));
    if (!check.ok) throw createError('invalid_request', `${FILTER_FIELD_NAMES[check.field]}: ${check.reason}`);
    const filters = check.filters;
    const limit = body.limit ?? DEFAULT_SEARCH_LIMIT;
    const settings = this.deps.settings.get().search;
    const candidates = Math.max(limit, MIN_CANDIDATES);

    let mode: SearchMode = body.mode ?? 'hybrid';
    let notice: string | null = null;
    const lane = mode === 'keyword' ? { embedder: null, reason: 'not asked' } : await this.deps.embedder();
    if (mode !== 'keyword' && !lane.embedder) {
      if (mode === 'semantic') throw createErrorWith('service_unavailable', { mode: 'semantic' }, `Semantic search is unavailable: ${lane.reason}`);
      mode = 'keyword';
      notice = `Keyword-only results: semantic search is unavailable (${lane.reason})`;
    }

    const [keywordHits, semanticHits] = await Promise.all([
      mode === 'semantic' ? [] : this.deps.store.search.keyword(parsed, { limit: candidates, filters, settings: keywordSettings(settings) }),
      mode === 'keyword' || !lane.embedder ? [] : this.#semantic(lane.embedder, parsed, filters, candidates),
    ]);
    const tiers = new Map(keywordHits.filter((h) => h.tier > 0).map((h) => [h.id, h.tier]));
    const fused = fuseScores(
      semanticHits.map((h) => [h.id, h.score] as const),
      keywordHits.map((h) => [h.id, h.score] as const),
      fusionFor(mode, settings),
      tiers,
    ).slice(0, limit);
    const described = await this.deps.store.search.describe(fused.map((h) => h.id), parsed.rankText);
    const rows = new Map(described.files.map((r) => [r.id, r]));
    const matcher = new TermMatcher(described.lexemes);

    const results: SearchResult[] = [];
    for (const hit of fused) {
      const row = rows.get(hit.id);
      if (!row) continue; // removed between the two queries
      const semantic = round(hit.semanticPart);
      const keyword = round(hit.keywordPart);
      results.push({
        file: fileOf(row),
        relevance_score: round(semantic + keyword),
        semantic_score: semantic,
        keyword_score: keyword,
        cosine: hit.semantic === null ? null : round(hit.semantic),
        bm25: hit.keyword === null ? null : round(hit.keyword),
        filename_match: hit.tier === 2 ? 'exact' : hit.tier === 1 ? 'stem' : null,
        ...snippetOf(row, matcher),
      });
    }
    return {
      results,
      mode,
      notice,
      query: { text: body.query, terms: parsed.terms, phrases: parsed.phrases, excluded: parsed.excluded },
      took_ms: Math.round((performance.now() - started) * 10) / 10,
    };
  }

  async #semantic(embedder: QueryEmbedder, parsed: ReturnType<typeof parseSearchQuery>, filters: CandidateFilters, limit: number) {
    const vector = await embedder.embed(parsed.rankText);
    if (vector.every((x) => x === 0)) return []; // no known word: the vector has no direction
    return this.deps.store.search.semantic({
      query: parsed,
      filters,
      vector,
      model: embedder.identity,
      dimension: embedder.info.dimension,
      limit,
    });
  }
}

function fileOf(row: SearchFileRow): SearchResult['file'] {
  return {
    id: row.id,
    file_path: row.file_path,
    filename: row.filename,
    extension: row.extension,
    created: row.created,
    modified: row.modified,
    accessed: row.accessed,
    title: row.title,
    summary: row.summary,
    keywords: row.keywords,
    size: row.size,
    status: row.status,
  };
}

/** The snippet of a result: cut from its text, or from its summary when the text has no words (e.g. an image). */
function snippetOf(row: SearchFileRow, matcher: TermMatcher): { snippet: string; highlights: [number, number][] } {
  let cut: Snippet = buildSnippet(row.content_head, matcher);
  if (cut.text === '') cut = buildSnippet(row.summary, matcher);
  return { snippet: cut.text, highlights: cut.highlights };
}
