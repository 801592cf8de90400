/**
 * A page of a file's extracted text for a preview, with the words of a query highlighted as search highlights
 * them (by Porter2 stem against the query's lexemes from the keyword index), so the preview marks the words a
 * result was found by.
 */
import type { StoreApi } from '../store/store.js';
import type { SnippetLane } from './snippet-lane.js';

export const DEFAULT_CONTENT_PAGE = 50_000;
export const MAX_CONTENT_PAGE = 500_000;

export interface ContentRequest {
  fileId: number;
  /** First character (Unicode code point, 0-based). */
  offset: number;
  /** Characters at most. */
  length: number;
  /** Words to highlight (a search query), or null. */
  query: string | null;
}

export interface FileContentAnswer {
  file_id: number;
  offset: number;
  /** Characters in `text` (code points). */
  length: number;
  total_length: number;
  /** Where the next page starts, or null at the end of the text. */
  next_offset: number | null;
  text_truncated: boolean;
  text: string;
  /** [start, end) ranges of `text` (JavaScript string indexes, as a search result's highlights) matching `query`. */
  highlights: [number, number][];
}

export type ContentOutcome = { ok: true; content: FileContentAnswer } | { ok: false; code: 'not_found'; reason: string };

/** The highlights are found on the snippet lane's thread (a page may hold 500,000 characters). */
export async function fileContent(store: StoreApi, lane: Pick<SnippetLane, 'highlight'>, request: ContentRequest): Promise<ContentOutcome> {
  const [page, lexemes] = await Promise.all([
    store.files.content(request.fileId, request.offset, request.length),
    request.query ? store.search.lexemes(request.query) : Promise.resolve([]),
  ]);
  if (!page) return { ok: false, code: 'not_found', reason: `No file with id ${request.fileId}` };
  const end = request.offset + page.length;
  const highlights = lexemes.length > 0 ? await lane.highlight(page.text, lexemes) : [];
  return {
    ok: true,
    content: {
      file_id: request.fileId,
      offset: request.offset,
      length: page.length,
      total_length: page.total_length,
      next_offset: end < page.total_length ? end : null,
      text_truncated: page.text_truncated,
      text: page.text,
      highlights,
    },
  };
}
