-- Watched directories (spec 2.4). Paths are absolute and unique; timestamps are stored with zone and rendered
-- without one, as the spec shows.
CREATE TABLE watch_jobs (
  id bigserial PRIMARY KEY,
  path text NOT NULL UNIQUE,
  is_active boolean NOT NULL DEFAULT true,
  recursive boolean NOT NULL DEFAULT true,
  file_pattern text,
  last_scan timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
