-- One row per file known to the index: indexed (with text and metadata) or failed (with the reason), so a
-- failed file is still visible and findable by name. Paths are absolute and unique.
CREATE TABLE files (
  id bigserial PRIMARY KEY,
  path text NOT NULL UNIQUE,
  job_id bigint REFERENCES watch_jobs (id) ON DELETE SET NULL,
  filename text NOT NULL,
  extension text NOT NULL DEFAULT '',
  size bigint NOT NULL DEFAULT 0,
  created timestamptz,
  modified timestamptz,
  accessed timestamptz,
  -- The exact mtime (ms, fractional) seen at indexing: with size, decides "unchanged" without reading the file.
  mtime_ms double precision NOT NULL DEFAULT 0,
  content_hash text,
  format text NOT NULL DEFAULT '',
  mime text NOT NULL DEFAULT '',
  title text NOT NULL DEFAULT '',
  summary text NOT NULL DEFAULT '',
  keywords text[] NOT NULL DEFAULT '{}',
  content text NOT NULL DEFAULT '',
  text_truncated boolean NOT NULL DEFAULT false,
  metadata jsonb NOT NULL DEFAULT '{}',
  status text NOT NULL CHECK (status IN ('indexed', 'failed')),
  error_code text,
  error text,
  note text,
  summarizer text,
  summarizer_fallback text,
  -- The embedding model of this file's chunks ('' when it has none): a model change re-embeds the rest.
  embedding_model text NOT NULL DEFAULT '',
  chunk_count integer NOT NULL DEFAULT 0,
  indexed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX files_content_hash_idx ON files (content_hash);
CREATE INDEX files_job_id_idx ON files (job_id);
-- Prefix scans for a directory scope (path LIKE '/dir/%'), independent of the collation.
CREATE INDEX files_path_prefix_idx ON files (path text_pattern_ops);
CREATE INDEX files_indexed_at_idx ON files (indexed_at);
