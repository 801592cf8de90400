-- Embedded pieces of a file's text. The vector column has no fixed dimension so that a model change needs no
-- migration; the HNSW index is created at run time for the active model's dimension, on
-- (embedding::vector(N)) for the rows of that dimension.
CREATE TABLE chunks (
  file_id bigint NOT NULL REFERENCES files (id) ON DELETE CASCADE,
  idx integer NOT NULL,
  start_char integer NOT NULL,
  end_char integer NOT NULL,
  text text NOT NULL,
  model text NOT NULL,
  dim smallint NOT NULL,
  embedding vector NOT NULL,
  PRIMARY KEY (file_id, idx)
);
