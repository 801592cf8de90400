import type Router from '@koa/router';
import { validateCandidateFilters } from '../../search/filters.js';
import type { CandidateFilters } from '../../store/queries/filters.js';
import type { AppDeps } from '../deps.js';
import { createError, createErrorWith } from '../errors.js';
import { validBody } from '../validate.js';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, SearchCancelled, type SearchOutcome } from '../../search/search.service.js';
import { SearchBody, type SearchFilters, type SearchResponseBody } from './search.schemas.js';

/** The API's names of the filter fields, for error messages. */
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

/** The body's `directory` and `filters` as the search's candidate filters (not yet validated). */
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

/** POST /api/search/: hybrid search, JSON body (query, directory, filters, limit, mode). */
export function searchRoutes(router: Router, { search }: AppDeps): void {
  router.post('/api/search', async (ctx) => {
    const body = validBody(ctx, SearchBody);
    const checked = validateCandidateFilters(candidateFilters(body.directory, body.filters));
    if (!checked.ok) throw createError('invalid_request', `${FILTER_FIELD_NAMES[checked.field]}: ${checked.reason}`);
    if ((body.offset ?? 0) + (body.limit ?? DEFAULT_SEARCH_LIMIT) > MAX_SEARCH_LIMIT) {
      throw createError('invalid_request', `offset + limit must be at most ${MAX_SEARCH_LIMIT}, got ${body.offset ?? 0} + ${body.limit ?? DEFAULT_SEARCH_LIMIT}`);
    }
    // A client that closes the request before its answer (search as you type: each keystroke drops the last) lets
    // the search stop at its next step instead of holding the store's thread for an answer nobody reads.
    const closed = new AbortController();
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) closed.abort();
    });
    if (ctx.req.socket.destroyed) closed.abort(); // closed while the body was read: 'close' has come and gone
    let outcome: SearchOutcome;
    try {
      outcome = await search.search(
        { query: body.query, filters: checked.filters, limit: body.limit, offset: body.offset, mode: body.mode, facets: body.facets },
        closed.signal,
      );
    } catch (err) {
      if (!(err instanceof SearchCancelled)) throw err;
      // Nobody is left to answer: no status, no body (Koa would write one to a closed socket).
      ctx.respond = false;
      return;
    }
    if (!outcome.ok) {
      if (outcome.code === 'semantic_unavailable') throw createErrorWith('service_unavailable', { mode: 'semantic' }, outcome.reason);
      throw createError('invalid_request', outcome.reason);
    }
    ctx.body = outcome.response satisfies SearchResponseBody;
  });
}
