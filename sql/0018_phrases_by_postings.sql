-- No GIN index on the positions (issue 17). It served one lookup: listing the files of a rare quoted phrase
-- (src/store/keyword/candidates.ts). The keyword postings already say which documents hold each of a phrase's
-- words; their intersection, checked on those files' own segments by key, lists the same files. Every file write
-- paid the index (1.0–1.9 CPU ms a file of the store's ~9–10 for its keyword index, bench:store on the Debian
-- corpus), its pending-list merges were the longest writes at 100k files (sql/0017), and it took 19 MB of the
-- corpus's 291. The segments stay: phrases and exclusions are checked on them, by file, through the primary key.
DROP INDEX IF EXISTS file_segments_tsv_idx;
