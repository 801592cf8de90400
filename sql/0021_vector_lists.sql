-- Vector lists instead of the HNSW graph (issue 17; docs/benchmarks/corpus.md, stops 56-57). Every chunk written
-- paid one graph insert on PGlite's only thread (~0.45 ms a 100-d vector, ~4 ms a Debian document). Now a write
-- only inserts its chunk rows; the upkeep packs the chunks written since its last pass into lists grown by splits
-- (src/store/vectors/), and a search reads the lists nearest its query plus those newest chunks.
--
-- A chunk's sequence number orders the writes: the chunks past vector_tail.packed are the tail, not in a list
-- yet (every chunk there before this migration, packed by the upkeep's first passes).
CREATE SEQUENCE chunks_seq;
ALTER TABLE chunks ADD COLUMN seq bigint NOT NULL DEFAULT nextval('chunks_seq');
ALTER SEQUENCE chunks_seq OWNED BY chunks.seq;
CREATE UNIQUE INDEX chunks_seq_key ON chunks (seq);

CREATE TABLE vector_tail (
  only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  -- Chunks up to this sequence number are in the lists (or were deleted since).
  packed bigint NOT NULL DEFAULT 0
);
INSERT INTO vector_tail DEFAULT VALUES;

-- The tree of past splits a model's lists grew by: a node a row (a leaf is a list); an inner node's sum is its
-- leaves' sums, computed when the tree is read.
CREATE TABLE vector_nodes (
  model text NOT NULL,
  dim smallint NOT NULL,
  node integer NOT NULL,
  parent integer NOT NULL,
  child integer NOT NULL,
  list integer NOT NULL,
  PRIMARY KEY (model, dim, node)
);

-- A list's sum of vectors (float32, little-endian): its centroid, made unit length. Written with each pack; a stop
-- between two loses nothing (the pack that moved it is rolled back with it).
CREATE TABLE vector_sums (
  model text NOT NULL,
  dim smallint NOT NULL,
  list integer NOT NULL,
  sum bytea NOT NULL,
  PRIMARY KEY (model, dim, list)
);

-- A list's vectors, a block a row: each chunk's sequence number (float64, little-endian) and its vector packed to
-- a scale and a byte a component (src/store/vectors/layout.ts). A pack rewrites only a list's last block; a split
-- rewrites the list's blocks. An entry whose chunk is gone (its file deleted or written again) stays until then:
-- a search checks every candidate against the chunk rows.
CREATE TABLE vector_blocks (
  model text NOT NULL,
  dim smallint NOT NULL,
  list integer NOT NULL,
  block integer NOT NULL,
  seqs bytea NOT NULL,
  vecs bytea NOT NULL,
  PRIMARY KEY (model, dim, list, block)
);
-- Kept in the row, uncompressed where it fits (a block is sized to fit a page): bytes of a byte a component do
-- not compress, and a value moved out of line costs a search a second lookup a block.
ALTER TABLE vector_blocks ALTER COLUMN seqs SET STORAGE MAIN;
ALTER TABLE vector_blocks ALTER COLUMN vecs SET STORAGE MAIN;

DO $$
DECLARE
  graph record;
BEGIN
  FOR graph IN SELECT indexname FROM pg_indexes WHERE tablename = 'chunks' AND indexname LIKE 'chunks\_embedding\_hnsw\_%' LOOP
    EXECUTE format('DROP INDEX %I', graph.indexname);
  END LOOP;
END
$$;
