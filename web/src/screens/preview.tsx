/**
 * A file's preview: its extracted text a page at a time with the query's words marked (the service marks them,
 * by stem, as search does), its metadata and its failure reason, and a button that copies its path.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, messageOf } from '../api/client.js';
import type { FileContentBody, FileRecordBody } from '../api/types.js';
import { FileIcon } from '../components/file-icon.js';
import { Highlighted } from '../components/highlighted.js';
import { CopyButton, ErrorMessage, Loading } from '../components/ui.js';
import { formatDateTime, formatSize } from '../lib/format.js';
import { useLoad } from '../lib/hooks.js';

const PAGE = 50_000;

function contentUrl(fileId: number, offset: number, query: string): string {
  const q = query ? `&q=${encodeURIComponent(query)}` : '';
  return `/api/files/${fileId}/content?offset=${offset}&length=${PAGE}${q}`;
}

export function Preview({ fileId, query, onClose }: { fileId: number; query: string; onClose: () => void }) {
  const record = useLoad(() => get<FileRecordBody>(`/api/files/${fileId}`), [fileId]);
  const [pages, setPages] = useState<FileContentBody[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const panel = useRef<HTMLElement>(null);

  useEffect(() => {
    let current = true;
    setPages([]);
    setError(null);
    get<FileContentBody>(contentUrl(fileId, 0, query)).then(
      (page) => current && setPages([page]),
      (err: unknown) => current && setError(messageOf(err)),
    );
    return () => {
      current = false;
    };
  }, [fileId, query]);

  useEffect(() => {
    panel.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [fileId]);

  const last = pages[pages.length - 1];
  const more = async () => {
    if (!last || last.next_offset === null) return;
    setLoadingMore(true);
    try {
      const page = await get<FileContentBody>(contentUrl(fileId, last.next_offset, query));
      setPages((p) => [...p, page]);
    } catch (err) {
      setError(messageOf(err));
    } finally {
      setLoadingMore(false);
    }
  };

  const file = record.data;
  const marks = pages.reduce((n, p) => n + p.highlights.length, 0);
  return (
    <aside class="preview" ref={panel} tabIndex={-1} aria-labelledby="preview-title">
      <div class="preview-head">
        {file && <FileIcon extension={file.extension} />}
        <h2 id="preview-title">{file ? file.title || file.filename : 'Preview'}</h2>
        <button type="button" class="secondary close" onClick={onClose} aria-label="Close the preview">
          ✕
        </button>
      </div>
      <ErrorMessage message={record.error} />
      {!file && !record.error && <Loading what="the file" />}
      {file && (
        <>
          <div class="row wrap">
            <code class="path">{file.file_path}</code>
            <CopyButton text={file.file_path} label="Copy path" />
          </div>
          {file.status === 'failed' && (
            <p class="error" role="status">
              Indexing failed ({file.error_code}): {file.error}
            </p>
          )}
          <dl class="meta">
            {file.summary && (
              <>
                <dt>Summary</dt>
                <dd>{file.summary}</dd>
              </>
            )}
            {file.keywords.length > 0 && (
              <>
                <dt>Keywords</dt>
                <dd>{file.keywords.join(', ')}</dd>
              </>
            )}
            <dt>Format</dt>
            <dd>
              {file.format || 'unknown'} ({file.mime || 'no type'})
            </dd>
            <dt>Status</dt>
            <dd>{file.status}{file.note ? ` — ${file.note}` : ''}</dd>
            <dt>Size</dt>
            <dd>{formatSize(file.size)}</dd>
            <dt>Modified</dt>
            <dd>{formatDateTime(file.modified)}</dd>
            <dt>Indexed</dt>
            <dd>{formatDateTime(file.indexed_at)}</dd>
          </dl>
        </>
      )}
      <h3>
        Text{' '}
        {last && (
          <span class="muted">
            ({last.total_length.toLocaleString()} characters{last.text_truncated ? ', cut at the size limit' : ''}
            {query ? `, ${marks} match${marks === 1 ? '' : 'es'} marked` : ''})
          </span>
        )}
      </h3>
      <ErrorMessage message={error} />
      {pages.length === 0 && !error && <Loading what="the text" />}
      {last && last.total_length === 0 && <p class="muted">This file has no extracted text.</p>}
      {pages.length > 0 && (
        <pre class="file-text">
          {pages.map((p) => (
            <Highlighted key={p.offset} text={p.text} ranges={p.highlights} />
          ))}
        </pre>
      )}
      {last && last.next_offset !== null && (
        <button type="button" class="secondary" disabled={loadingMore} onClick={() => void more()}>
          {loadingMore ? 'Loading…' : `Show more (${(last.total_length - last.next_offset).toLocaleString()} characters left)`}
        </button>
      )}
    </aside>
  );
}
