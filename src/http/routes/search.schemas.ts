/** POST /api/search/: the request, the answer (results, paging, facets), and its description. */
import Type, { type Static } from '#typebox';
import { MAX_SEARCH_LIMIT, SEARCH_MODES } from '../../search/search.service.js';
import { Nullable, TextRanges, type Operation } from './common.schemas.js';
import { FileSummarySchema } from './files.schemas.js';

const StringOrList = (description: string) =>
  Type.Union([Type.String({ minLength: 1, maxLength: 500 }), Type.Array(Type.String({ minLength: 1, maxLength: 500 }), { minItems: 1, maxItems: 100 })], { description });

const IsoDate = (description: string) => Type.String({ minLength: 10, maxLength: 40, description });

/** Keys accepted in `filters` (all optional, all combined with AND). */
export const SearchFiltersSchema = Type.Object(
  {
    extension: StringOrList("File extension(s), with or without the dot: 'pdf' or ['md', '.txt']"),
    modified_after: IsoDate('Modified at or after (ISO 8601)'),
    modified_before: IsoDate('Modified at or before (ISO 8601)'),
    created_after: IsoDate('Created at or after (ISO 8601)'),
    created_before: IsoDate('Created at or before (ISO 8601)'),
    min_size: Type.Integer({ minimum: 0, description: 'Minimum size in bytes' }),
    max_size: Type.Integer({ minimum: 0, description: 'Maximum size in bytes' }),
    path: Type.String({ minLength: 1, maxLength: 1024, description: "Glob on the path ('reports/**/*.pdf') or, without a slash, on the name ('*.md')" }),
    keyword: StringOrList('Keyword(s) the file must carry (all of them)'),
  },
  { additionalProperties: false },
);
// Every key is optional: Type.Partial keeps additionalProperties false.
export const SearchFilters = Type.Partial(SearchFiltersSchema, { additionalProperties: false });
export type SearchFilters = Static<typeof SearchFilters>;

export const SearchModeSchema = Type.Enum(SEARCH_MODES, { description: "'hybrid' (default), 'keyword' or 'semantic'" });

export const SearchBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 1000, description: 'Natural-language query; "quoted phrases" (up to 8) and -excluded words or -"phrases" (up to 8; more is a 400) work' }),
    directory: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'Absolute directory to search in' })),
    filters: Type.Optional(SearchFilters),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SEARCH_LIMIT, description: 'Maximum number of results (default 50)' })),
    offset: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_SEARCH_LIMIT - 1, description: `Results to skip, for paging (default 0); offset + limit at most ${MAX_SEARCH_LIMIT}` }),
    ),
    mode: Type.Optional(SearchModeSchema),
    facets: Type.Optional(Type.Boolean({ description: 'Count the ranked files by extension, folder and modification period (default false)' })),
  },
  { additionalProperties: false },
);
export type SearchBody = Static<typeof SearchBody>;

const FacetBucketSchema = Type.Object(
  {
    value: Type.String({ description: 'An extension (for filters.extension), a folder (for directory) or an ISO 8601 instant (for filters.modified_after, or modified_before when bound is before)' }),
    label: Type.String(),
    count: Type.Integer({ minimum: 0 }),
    bound: Type.Optional(Type.Union([Type.Literal('after'), Type.Literal('before')])),
  },
  { additionalProperties: false },
);

export const SearchFacetsSchema = Type.Object(
  {
    counted: Type.Integer({ minimum: 0, description: 'The ranked files the counts are over (the candidates of each side, at least the best 100 of each, fused)' }),
    extension: Type.Array(FacetBucketSchema),
    folder: Type.Array(FacetBucketSchema, { description: 'Sub-folders of the deepest folder holding every counted file (or of directory)' }),
    modified: Type.Array(FacetBucketSchema, { description: "Cumulative periods ('past week' includes 'past day'), then 'older than a year'" }),
  },
  { additionalProperties: false, title: 'SearchFacets' },
);

export const SearchResultSchema = Type.Object(
  {
    file: FileSummarySchema,
    relevance_score: Type.Number({ description: 'semantic_score + keyword_score; results are sorted by it, descending' }),
    semantic_score: Type.Number(),
    keyword_score: Type.Number(),
    cosine: Nullable(Type.Number({ description: "Raw cosine of the file's best chunk" })),
    bm25: Nullable(Type.Number({ description: 'Raw BM25F score' })),
    filename_match: Nullable(Type.Union([Type.Literal('exact'), Type.Literal('stem')])),
    snippet: Type.String(),
    highlights: TextRanges('[start, end) ranges of snippet matching the query'),
  },
  { additionalProperties: false, title: 'SearchResult' },
);

export const SearchResponseSchema = Type.Object(
  {
    results: Type.Array(SearchResultSchema),
    offset: Type.Integer({ minimum: 0 }),
    has_more: Type.Boolean({ description: 'More ranked results follow this page (ask again with offset + limit)' }),
    facets: Nullable(SearchFacetsSchema),
    mode: SearchModeSchema,
    notice: Nullable(Type.String({ description: 'Why the answer differs from what was asked (e.g. keyword-only without an embedder, or corrected words searched)' })),
    did_you_mean: Nullable(Type.String({ description: 'The query with its words no file contains replaced by the nearest indexed words; null when every word is known' })),
    query: Type.Object(
      { text: Type.String(), terms: Type.Array(Type.String()), phrases: Type.Array(Type.String()), excluded: Type.Array(Type.String()) },
      { additionalProperties: false },
    ),
    took_ms: Type.Number({ minimum: 0 }),
  },
  { additionalProperties: false, title: 'SearchResponse' },
);
export type SearchResponseBody = Static<typeof SearchResponseSchema>;

export const searchOperations: Operation[] = [
  {
    method: 'post',
    path: '/api/search',
    tag: 'search',
    summary: 'Hybrid search',
    description:
      'BM25F over the keyword index and best-chunk cosine over the vectors, each narrowed by the same filters in the database, ' +
      'fused as semantic_score + keyword_score. `mode: "semantic"` without an embedder is a 503 `service_unavailable`.',
    body: SearchBody,
    answers: { 200: { description: 'Results, best first', schema: SearchResponseSchema } },
  },
];
