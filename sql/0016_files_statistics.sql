-- No planner statistics for the columns of `files` that no statement filters, joins, groups or sorts on. ANALYZE
-- computes each column's statistics from its sample (the text ones detoasted, sorted, their distinct values
-- counted), and upkeep's ANALYZE of files runs on PGlite's only thread while searches wait: at 100k files (target
-- 30) these 13 columns were ~50 of its ~200 ms (196–216 → 150–166 ms, warm). The columns conditions read keep
-- theirs: path, filename, extension, size, created, modified (the search filters), status, embedding_model,
-- content_hash, job_id, indexed_at, id. 0007 already dropped content's, summary's and metadata's. The filters'
-- keyword condition is an EXISTS over unnest(keywords), which no column statistic estimates.
ALTER TABLE files
  ALTER COLUMN title SET STATISTICS 0,
  ALTER COLUMN keywords SET STATISTICS 0,
  ALTER COLUMN format SET STATISTICS 0,
  ALTER COLUMN mime SET STATISTICS 0,
  ALTER COLUMN error_code SET STATISTICS 0,
  ALTER COLUMN error SET STATISTICS 0,
  ALTER COLUMN note SET STATISTICS 0,
  ALTER COLUMN summarizer SET STATISTICS 0,
  ALTER COLUMN summarizer_fallback SET STATISTICS 0,
  ALTER COLUMN text_truncated SET STATISTICS 0,
  ALTER COLUMN chunk_count SET STATISTICS 0,
  ALTER COLUMN accessed SET STATISTICS 0,
  ALTER COLUMN mtime_ms SET STATISTICS 0;
