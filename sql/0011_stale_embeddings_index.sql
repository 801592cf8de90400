-- Counting the files another embedding model made (at every start, to decide on a re-embed run) scanned the whole
-- files table: 0.5 s of PGlite's only thread at 100k files, ~1.5 s at 300k, at every start, to answer 0 almost
-- always. This index answers it from the few entries that differ from the active model (the repository counts the
-- two ranges below and above it: a btree cannot serve `<>`). One small entry per indexed file; btree deduplication
-- stores the one model's name once per page.
CREATE INDEX files_embedding_model_idx ON files (embedding_model) WHERE status = 'indexed';
