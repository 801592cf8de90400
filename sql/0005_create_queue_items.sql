-- Pending work of the indexing queue (spec 2.5), so items survive a restart. Times are Unix seconds with a
-- fractional part, as the API shows them. No foreign key to watch_jobs: items are written in batches after the
-- fact, and the service removes a deleted job's items itself.
CREATE TABLE queue_items (
  id uuid PRIMARY KEY,
  file_path text NOT NULL,
  action text NOT NULL CHECK (action IN ('index', 'delete', 'move')),
  status text NOT NULL CHECK (status IN ('cooling_down', 'ready', 'processing')),
  enqueued_at double precision NOT NULL,
  cooldown_expires_at double precision NOT NULL,
  dest_path text,
  retry_count integer NOT NULL DEFAULT 0,
  job_id bigint,
  last_error text,
  last_event_at double precision
);
