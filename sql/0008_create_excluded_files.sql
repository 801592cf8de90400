-- Files the content check kept out of the index (a private key block, a well-known token shape): not in files,
-- so nothing of them is searchable, summarised or embedded; remembered with the reason, so /api/filters/test can
-- say why, and with size and mtime, so a scan skips them unread until they change. Paths are absolute.
CREATE TABLE excluded_files (
  path text PRIMARY KEY,
  job_id bigint REFERENCES watch_jobs (id) ON DELETE SET NULL,
  size bigint NOT NULL,
  mtime_ms double precision NOT NULL,
  code text NOT NULL,
  reason text NOT NULL,
  excluded_at timestamptz NOT NULL DEFAULT now()
);
-- Prefix scans for a directory (path LIKE '/dir/%'), as on files.
CREATE INDEX excluded_files_path_prefix_idx ON excluded_files (path text_pattern_ops);
