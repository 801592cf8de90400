-- The positions' GIN index (file_segments_tsv_idx) takes a write's entries into a pending list, and the write that
-- fills the list merges all of it into the index, in that write's statement. At PostgreSQL's default (4 MB) that
-- one file write held PGlite's only thread for ~0.5 s at 100k files (bench:search's stall run: its four slowest
-- writes, 486–572 ms, one every ~1,250 files), every search waiting behind it, and longer as the index grows. A
-- merge's cost is mostly a descent per distinct lexeme into an index that large, so a smaller list merges more
-- often but for less each time. 3,000 files' segments inserted on a copy of the 100k index (ms, three rounds,
-- warm): the longest merge ~500–600 at 4 MB, ~360–440 at 2 MB, ~260–290 at 1 MB; all the inserts 4.1–4.4 s at
-- 4 MB, 4.2–5.6 s at 1 MB; without a pending list (fastupdate off) 12–16 s, its longest single write ~50–85 ms.
-- On a server, autovacuum merges the list too, beside the searches.
ALTER INDEX file_segments_tsv_idx SET (gin_pending_list_limit = 1024);
