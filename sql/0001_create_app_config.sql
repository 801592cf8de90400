-- Key/value configuration that must survive restarts: settings (one row per dotted key, e.g. 'queue.cooldown_seconds'),
-- and whole documents such as the filter configuration ('filters').
CREATE TABLE app_config (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
