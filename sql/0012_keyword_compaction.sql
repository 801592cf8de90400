-- Compaction of the keyword index's blocks (src/store/keyword/compaction.ts). Sealing in short slices gives every
-- lexeme a new block per slice that holds it: on the Debian documentation (5,400 files) 558,000–686,000 blocks for
-- 232,000 lexemes whose postings fit 243,000, depending on how the slices fell (the machine's load sizes them),
-- each with a row and an index entry (122 MB for 31 MB of postings). And a departed document's postings stayed in
-- their blocks for good, listed in keyword_dead. Compaction copies the blocks, lexeme by lexeme in short slices,
-- into a new table, each lexeme's live postings packed 128 a block as one seal of them all would, then swaps the
-- tables in one transaction: the old table's space goes back to the file system at once (PGlite has no
-- autovacuum, and rewriting rows in place would only leave dead ones behind).
ALTER TABLE keyword_seal
  -- the watermark when the last compaction finished: the next is due once the sealed range has doubled
  ADD COLUMN compacted_upto bigint NOT NULL DEFAULT 0,
  -- the watermark the running compaction copies (NULL: none runs); a seal meanwhile makes its copy void
  ADD COLUMN compaction_upto bigint,
  -- the last lexeme it copied (NULL: none yet)
  ADD COLUMN compaction_cursor text;

-- The dead postings the running compaction left out of its copy: removed from keyword_dead with the swap.
CREATE TABLE keyword_compaction_dead (
  lexeme text NOT NULL,
  doc bigint NOT NULL,
  PRIMARY KEY (lexeme, doc)
);
