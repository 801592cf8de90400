import Type, { type Static } from 'typebox';
import { MAX_SEARCH_LIMIT, SEARCH_MODES } from '../../search/search.service.js';

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
    query: Type.String({ minLength: 1, maxLength: 1000, description: 'Natural-language query; "quoted phrases" and -excluded words work' }),
    directory: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: 'Absolute directory to search in' })),
    filters: Type.Optional(SearchFilters),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SEARCH_LIMIT, description: 'Maximum number of results (default 50)' })),
    mode: Type.Optional(SearchModeSchema),
  },
  { additionalProperties: false },
);
export type SearchBody = Static<typeof SearchBody>;
