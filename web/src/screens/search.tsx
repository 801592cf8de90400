/**
 * Search: one box, results as you type (debounced; an older answer never replaces a newer one), the mode,
 * facets that narrow the search, keyboard navigation (/ to the box, arrows through results, Enter to preview,
 * Escape back), and more results on demand beyond the first 50.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, messageOf, post } from '../api/client.js';
import type { FileStats, SearchBody, SearchFacets, SearchMode, SearchResponseBody, SearchResult } from '../api/types.js';
import { FileIcon } from '../components/file-icon.js';
import { Highlighted } from '../components/highlighted.js';
import { ErrorMessage } from '../components/ui.js';
import { formatCount, formatDate, formatSize } from '../lib/format.js';
import { useDebounced, useLoad } from '../lib/hooks.js';
import { replaceParams } from '../lib/route.js';
import { Preview } from './preview.js';

const PAGE = 50;
const MODES: { value: SearchMode; label: string }[] = [
  { value: 'hybrid', label: 'Hybrid' },
  { value: 'keyword', label: 'Keyword' },
  { value: 'semantic', label: 'Semantic' },
];

/** What narrows the search, as clicked in the facets. */
interface Narrowing {
  extension: string | null;
  directory: string | null;
  modified: { bound: 'after' | 'before'; value: string; label: string } | null;
}

function requestOf(query: string, mode: SearchMode, n: Narrowing, offset: number): SearchBody {
  const filters: NonNullable<SearchBody['filters']> = {};
  if (n.extension !== null) filters.extension = n.extension;
  if (n.modified) filters[n.modified.bound === 'after' ? 'modified_after' : 'modified_before'] = n.modified.value;
  return {
    query,
    mode,
    limit: PAGE,
    offset,
    facets: offset === 0,
    ...(Object.keys(filters).length > 0 ? { filters } : {}),
    ...(n.directory ? { directory: n.directory } : {}),
  };
}

interface Answer {
  results: SearchResult[];
  facets: SearchFacets | null;
  hasMore: boolean;
  notice: string | null;
  didYouMean: string | null;
  tookMs: number;
  mode: SearchMode;
}

export function SearchScreen({ params }: { params: URLSearchParams }) {
  const [query, setQuery] = useState(params.get('q') ?? '');
  const [mode, setMode] = useState<SearchMode>((params.get('mode') as SearchMode | null) ?? 'hybrid');
  const [narrowing, setNarrowing] = useState<Narrowing>({ extension: params.get('ext'), directory: params.get('dir'), modified: null });
  const [answer, setAnswer] = useState<Answer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [preview, setPreview] = useState<number | null>(params.has('file') ? Number(params.get('file')) : null);
  const box = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLOListElement>(null);
  const latest = useRef<AbortController | null>(null);
  const settled = useDebounced(query.trim(), 250);
  const stats = useLoad(() => get<FileStats>('/api/files/stats'));

  useEffect(() => {
    replaceParams('search', { q: query.trim() || null, mode: mode === 'hybrid' ? null : mode, ext: narrowing.extension, dir: narrowing.directory, file: preview === null ? null : String(preview) });
  }, [query, mode, narrowing, preview]);

  const run = async (offset: number) => {
    latest.current?.abort();
    const controller = new AbortController();
    latest.current = controller;
    setBusy(true);
    try {
      const body = await post<SearchResponseBody>('/api/search', requestOf(settled, mode, narrowing, offset), { signal: controller.signal });
      setError(null);
      setAnswer((prev) => ({
        results: offset === 0 || !prev ? body.results : [...prev.results, ...body.results],
        facets: offset === 0 ? body.facets : (prev?.facets ?? null),
        hasMore: body.has_more,
        notice: body.notice,
        didYouMean: body.did_you_mean,
        tookMs: body.took_ms,
        mode: body.mode,
      }));
    } catch (err) {
      if (controller.signal.aborted) return;
      setError(messageOf(err));
      if (offset === 0) setAnswer(null);
    } finally {
      if (latest.current === controller) setBusy(false);
    }
  };

  useEffect(() => {
    if (settled === '') {
      latest.current?.abort();
      setAnswer(null);
      setError(null);
      setBusy(false);
      return;
    }
    void run(0);
  }, [settled, mode, narrowing]);

  // '/' anywhere (outside a field) goes to the search box.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const field = (e.target as HTMLElement).closest('input, textarea, select, [contenteditable]');
      if (e.key === '/' && !field) {
        e.preventDefault();
        box.current?.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  const resultButtons = () => [...(list.current?.querySelectorAll<HTMLButtonElement>('button.result-open') ?? [])];
  const moveFocus = (from: Element | null, step: number) => {
    const buttons = resultButtons();
    const at = buttons.findIndex((b) => b === from);
    const next = at < 0 ? (step > 0 ? 0 : -1) : at + step;
    if (next < 0) box.current?.focus();
    else buttons[Math.min(next, buttons.length - 1)]?.focus();
  };
  const onListKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      moveFocus(document.activeElement, e.key === 'ArrowDown' ? 1 : -1);
    }
  };
  const closePreview = () => {
    const id = preview;
    setPreview(null);
    requestAnimationFrame(() => resultButtons().find((b) => b.dataset.id === String(id))?.focus());
  };

  const results = answer?.results ?? [];
  const active = narrowing.extension !== null || narrowing.directory !== null || narrowing.modified !== null;
  return (
    <section class={`search-screen${preview !== null ? ' with-preview' : ''}`} aria-label="Search">
      <div class="search-column">
        <form class="search-form" role="search" onSubmit={(e) => e.preventDefault()}>
          <label for="search-box" class="visually-hidden">
            Search your files
          </label>
          <input
            id="search-box"
            ref={box}
            type="search"
            placeholder="Search your files…  (press / to come back here)"
            value={query}
            autoFocus
            autocomplete="off"
            spellcheck={false}
            onInput={(e) => setQuery(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'ArrowDown') {
                e.preventDefault();
                moveFocus(null, 1);
              }
              if (e.key === 'Escape') setQuery('');
            }}
          />
          <fieldset class="segmented">
            <legend class="visually-hidden">Search mode</legend>
            {MODES.map((m) => (
              <label key={m.value}>
                <input type="radio" name="mode" value={m.value} checked={mode === m.value} onChange={() => setMode(m.value)} />
                <span>{m.label}</span>
              </label>
            ))}
          </fieldset>
        </form>

        {active && (
          <ul class="chips" aria-label="Narrowed by">
            {narrowing.extension !== null && (
              <li>
                <button type="button" class="chip" onClick={() => setNarrowing({ ...narrowing, extension: null })} aria-label={`Remove the filter: extension ${narrowing.extension}`}>
                  .{narrowing.extension || '(none)'} ✕
                </button>
              </li>
            )}
            {narrowing.directory !== null && (
              <li>
                <button type="button" class="chip" onClick={() => setNarrowing({ ...narrowing, directory: null })} aria-label={`Remove the filter: folder ${narrowing.directory}`}>
                  in {narrowing.directory} ✕
                </button>
              </li>
            )}
            {narrowing.modified !== null && (
              <li>
                <button type="button" class="chip" onClick={() => setNarrowing({ ...narrowing, modified: null })} aria-label={`Remove the filter: modified ${narrowing.modified.label}`}>
                  modified {narrowing.modified.label} ✕
                </button>
              </li>
            )}
          </ul>
        )}

        <ErrorMessage message={error} />
        <p class="muted summary" aria-live="polite">
          {settled === ''
            ? stats.data
              ? `${formatCount(stats.data.total_files)} files indexed${stats.data.failed_files ? `, ${formatCount(stats.data.failed_files)} failed` : ''}. Type to search; results appear as you type.`
              : ' '
            : busy && !answer
              ? 'Searching…'
              : answer
                ? `${results.length === 0 ? 'No results' : `${results.length}${answer.hasMore ? '+' : ''} result${results.length === 1 ? '' : 's'}`} (${answer.mode}, ${answer.tookMs} ms)`
                : ''}
        </p>
        {stats.data?.total_files === 0 && settled === '' && (
          <p>
            Nothing is indexed yet: <a href="#/folders">watch a folder</a> to begin.
          </p>
        )}
        {answer?.notice && <p class="notice">{answer.notice}</p>}
        {answer?.didYouMean && (
          <p class="notice">
            Did you mean{' '}
            <button type="button" class="link" onClick={() => setQuery(answer.didYouMean ?? '')}>
              {answer.didYouMean}
            </button>
            ?
          </p>
        )}

        <div class="results-and-facets">
          {answer?.facets && answer.facets.counted > 0 && <Facets facets={answer.facets} narrowing={narrowing} onNarrow={setNarrowing} />}
          <ol class="results" ref={list} onKeyDown={onListKey} aria-label="Results">
            {results.map((r) => (
              <li key={r.file.id} class={preview === r.file.id ? 'selected' : undefined}>
                <FileIcon extension={r.file.extension} />
                <div class="result-body">
                  <button type="button" class="result-open" data-id={r.file.id} onClick={() => setPreview(r.file.id)} aria-describedby={`path-${r.file.id}`}>
                    {r.file.title || r.file.filename}
                  </button>
                  <div class="result-path" id={`path-${r.file.id}`}>
                    {r.file.file_path}
                  </div>
                  {r.snippet && (
                    <p class="snippet">
                      <Highlighted text={r.snippet} ranges={r.highlights} />
                    </p>
                  )}
                  <div class="result-meta muted">
                    <span>{r.file.extension ? `.${r.file.extension}` : 'no extension'}</span>
                    <span>{formatSize(r.file.size)}</span>
                    <span>modified {formatDate(r.file.modified)}</span>
                    {r.file.status === 'failed' && <span class="bad">failed</span>}
                  </div>
                </div>
              </li>
            ))}
          </ol>
        </div>
        {answer?.hasMore && (
          <button type="button" class="secondary more" disabled={busy} onClick={() => void run(results.length)}>
            {busy ? 'Loading…' : 'More results'}
          </button>
        )}
      </div>
      {preview !== null && <Preview fileId={preview} query={settled} onClose={closePreview} />}
    </section>
  );
}

type Bucket = SearchFacets['extension'][number];

/** One facet: its buckets as toggle buttons (pressed: the search is narrowed by it). */
function FacetList({ title, buckets, pressed, suffix = '', onPick }: { title: string; buckets: Bucket[]; pressed: (b: Bucket) => boolean; suffix?: string; onPick: (b: Bucket) => void }) {
  if (buckets.length === 0) return null;
  return (
    <section>
      <h2>{title}</h2>
      <ul>
        {buckets.map((b) => (
          <li key={b.label + b.value}>
            <button type="button" class="facet" title={b.value} aria-pressed={pressed(b)} onClick={() => onPick(b)}>
              <span>
                {b.label}
                {suffix}
              </span>{' '}
              <span class="count">{b.count}</span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Facets({ facets, narrowing, onNarrow }: { facets: SearchFacets; narrowing: Narrowing; onNarrow: (n: Narrowing) => void }) {
  const sameExtension = (b: Bucket) => narrowing.extension === b.value;
  const samePeriod = (b: Bucket) => narrowing.modified?.label === b.label;
  return (
    <aside class="facets" aria-label="Narrow the search">
      <FacetList title="Type" buckets={facets.extension} pressed={sameExtension} onPick={(b) => onNarrow({ ...narrowing, extension: sameExtension(b) ? null : b.value })} />
      <FacetList title="Folder" buckets={facets.folder} suffix="/" pressed={() => false} onPick={(b) => onNarrow({ ...narrowing, directory: b.value })} />
      <FacetList
        title="Modified"
        buckets={facets.modified}
        pressed={samePeriod}
        onPick={(b) => onNarrow({ ...narrowing, modified: samePeriod(b) ? null : { bound: b.bound ?? 'after', value: b.value, label: b.label } })}
      />
    </aside>
  );
}
