-- The keyword index in blocks: postings move from one row per (lexeme, file) into packed blocks of up to 128
-- postings per lexeme, in document order, each with the maxima a score bound needs. A search reads a few blocks
-- as bytes (the binary result format) and the store scores them in its own code with Block-Max MaxScore
-- (src/store/keyword/): PGlite's executor costs ~2 us per posting row, a packed block ~20 ns per posting.
--
-- Documents: every (re)indexing of a file is a new document with a new ordinal (`doc`), so postings are only ever
-- appended at the end of the doc order, and a sealed block never gains a posting: its maxima stay upper bounds.
--   * New postings go to keyword_tail, one row each (the shape of the former file_terms), as the triggers write them.
--   * Maintenance seals the lowest unsealed documents into blocks (filesift_keyword_seal, in slices): the sealed
--     documents are exactly those at or below a watermark (keyword_seal), so the tail is a doc range of its own.
--   * Nothing is updated in place: a seal adds new blocks (a block is named by its first document) and moves the
--     watermark. PGlite has no autovacuum, so tables that only grow, a one-row watermark and a tail emptied by
--     TRUNCATE once wholly sealed keep it free of dead rows; small blocks of rare words cost a row read each.
--   * A sealed document that leaves (file deleted or re-indexed) leaves its postings in their blocks; keyword_dead
--     lists them per lexeme, so df and scoring skip them, until compaction rewrites the blocks without them.
-- df(lexeme) = postings in its blocks - dead ones + tail postings; N and the length sums stay in keyword_stats.
--
-- Phrases: the short fields get segments of their own (-3 name and title, -2 keywords, -1 summary; 1.. content)
-- with a gap of two stop-word positions between keywords and between file name and title, so that a quoted phrase
-- never matches across a field boundary or two adjacent keywords. Files indexed before this migration keep their
-- old segment 0 until they are indexed again.

-- Document ordinals. Existing documents keep their file id as ordinal; new ones count on from above.
CREATE SEQUENCE keyword_doc_seq AS bigint MAXVALUE 2147483647;
ALTER TABLE keyword_docs ADD COLUMN doc bigint;
UPDATE keyword_docs SET doc = file_id;
SELECT setval('keyword_doc_seq', coalesce((SELECT max(doc) FROM keyword_docs), 0) + 1, false);
ALTER TABLE keyword_docs
  ALTER COLUMN doc SET NOT NULL,
  ALTER COLUMN doc SET DEFAULT nextval('keyword_doc_seq'),
  ADD CONSTRAINT keyword_docs_doc_key UNIQUE (doc),
  ADD CONSTRAINT keyword_docs_doc_int4 CHECK (doc < 2147483648);

-- Every document at or below `upto` is sealed (its postings are in blocks), every one above it is in the tail.
CREATE TABLE keyword_seal (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  upto bigint NOT NULL DEFAULT 0
);
INSERT INTO keyword_seal DEFAULT VALUES;

-- The tail: the former file_terms, keyed by document.
ALTER TABLE file_terms DROP CONSTRAINT file_terms_file_id_fkey;
ALTER TABLE file_terms RENAME TO keyword_tail;
ALTER TABLE keyword_tail RENAME COLUMN file_id TO doc;
ALTER INDEX file_terms_pkey RENAME TO keyword_tail_pkey;
ALTER INDEX file_terms_file_id_idx RENAME TO keyword_tail_doc_idx;
ALTER TABLE keyword_tail ADD CONSTRAINT keyword_tail_doc_fkey FOREIGN KEY (doc) REFERENCES keyword_docs (doc) ON DELETE CASCADE;

-- Sealed blocks, named by their first document. `postings`: n records of 22 bytes, in doc order, big-endian:
--   doc int4 | tf_a tf_b tf_c tf_d int2 | len_a len_b len_c int2 | len_d int4
-- The maxima of tf and minima of the lengths bound the BM25F score of any posting in the block, for any field
-- weights and k1, b (store/keyword/search.ts). Rows stay inline (toast_tuple_target): a block is one heap read.
CREATE TABLE keyword_blocks (
  lexeme text NOT NULL,
  first_doc bigint NOT NULL,
  last_doc bigint NOT NULL,
  n smallint NOT NULL CHECK (n BETWEEN 1 AND 128),
  max_tf_a smallint NOT NULL,
  max_tf_b smallint NOT NULL,
  max_tf_c smallint NOT NULL,
  max_tf_d smallint NOT NULL,
  min_len_a smallint NOT NULL,
  min_len_b smallint NOT NULL,
  min_len_c smallint NOT NULL,
  min_len_d integer NOT NULL,
  postings bytea NOT NULL,
  PRIMARY KEY (lexeme, first_doc)
) WITH (toast_tuple_target = 8160);
ALTER TABLE keyword_blocks ALTER COLUMN postings SET STORAGE MAIN;

-- Postings of departed documents that still sit in sealed blocks.
CREATE TABLE keyword_dead (
  lexeme text NOT NULL,
  doc bigint NOT NULL,
  PRIMARY KEY (lexeme, doc)
);

-- A sealed document leaves: its lexemes (from its segments, still there) are listed as dead postings.
CREATE FUNCTION filesift_keyword_bury(file bigint) RETURNS void LANGUAGE sql AS $$
  INSERT INTO keyword_dead (lexeme, doc)
  SELECT DISTINCT u.lexeme, d.doc
  FROM keyword_docs d JOIN file_segments s ON s.file_id = d.file_id CROSS JOIN LATERAL unnest(s.tsv) AS u
  WHERE d.file_id = file AND d.doc <= (SELECT upto FROM keyword_seal)
  ON CONFLICT DO NOTHING
$$;

CREATE FUNCTION filesift_keyword_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM filesift_keyword_bury(OLD.id);
  RETURN OLD;
END
$$;
CREATE TRIGGER files_keyword_delete BEFORE DELETE ON files
  FOR EACH ROW EXECUTE FUNCTION filesift_keyword_forget();

-- (Re)builds one file's document: the previous one leaves, a new one (new ordinal) gets segments and tail postings.
CREATE OR REPLACE FUNCTION filesift_keyword_reindex() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM filesift_keyword_bury(NEW.id);
  DELETE FROM keyword_docs WHERE file_id = NEW.id;
  DELETE FROM file_segments WHERE file_id = NEW.id;

  INSERT INTO file_segments (file_id, seg, tsv)
  SELECT NEW.id, f.seg, f.tsv
  FROM (VALUES
    (-3, setweight(to_tsvector('filesift_english',
                               filesift_filename_words(NEW.filename) || ' and the ' || coalesce(NEW.title, '')), 'A')),
    (-2, setweight(to_tsvector('filesift_english', coalesce(array_to_string(NEW.keywords, ' and the '), '')), 'B')),
    (-1, setweight(to_tsvector('filesift_english', coalesce(NEW.summary, '')), 'C'))
  ) AS f (seg, tsv)
  WHERE length(f.tsv) > 0
  UNION ALL
  SELECT NEW.id, s.ord::integer, setweight(to_tsvector('filesift_english', s.piece), 'D')
  FROM filesift_keyword_segments(NEW.content) WITH ORDINALITY AS s (piece, ord);

  -- tf per lexeme and field = number of positions carrying that field's weight label, over all segments;
  -- lengths = their sums. Clamped to the column types (only absurd documents reach the limits).
  WITH tf AS (
    SELECT u.lexeme,
           least(sum(coalesce(cardinality(array_positions(u.weights, 'A')), 0)), 32767) AS a,
           least(sum(coalesce(cardinality(array_positions(u.weights, 'B')), 0)), 32767) AS b,
           least(sum(coalesce(cardinality(array_positions(u.weights, 'C')), 0)), 32767) AS c,
           least(sum(coalesce(cardinality(array_positions(u.weights, 'D')), 0)), 32767) AS d
    FROM file_segments s, unnest(s.tsv) AS u
    WHERE s.file_id = NEW.id
    GROUP BY u.lexeme
  ), len AS (
    SELECT least(coalesce(sum(a), 0), 32767) AS a, least(coalesce(sum(b), 0), 32767) AS b,
           least(coalesce(sum(c), 0), 32767) AS c, least(coalesce(sum(d), 0), 2147483647) AS d
    FROM tf
  ), doc AS (
    INSERT INTO keyword_docs (file_id, len_a, len_b, len_c, len_d)
    SELECT NEW.id, a, b, c, d FROM len
    RETURNING doc
  )
  INSERT INTO keyword_tail (lexeme, doc, tf_a, tf_b, tf_c, tf_d, len_a, len_b, len_c, len_d)
  SELECT tf.lexeme, doc.doc, tf.a, tf.b, tf.c, tf.d, len.a, len.b, len.c, len.d
  FROM tf CROSS JOIN len CROSS JOIN doc;
  RETURN NULL;
END
$$;

-- Seals the `max_docs` lowest unsealed documents: their tail postings move into new blocks of up to 128 per
-- lexeme, and the watermark moves up. One call is one statement and one transaction; the store calls it in
-- slices so that no statement holds the database for long. Answers how many documents it sealed.
CREATE FUNCTION filesift_keyword_seal(max_docs integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  sealed_below bigint;
  sealed_upto bigint;
  moved integer;
BEGIN
  SELECT s.upto INTO sealed_below FROM keyword_seal s;
  SELECT max(b.doc), count(*) INTO sealed_upto, moved
  FROM (SELECT d.doc FROM keyword_docs d WHERE d.doc > sealed_below ORDER BY d.doc LIMIT max_docs) AS b;
  IF moved = 0 THEN
    RETURN 0;
  END IF;
  WITH moving AS (
    DELETE FROM keyword_tail t WHERE t.doc > sealed_below AND t.doc <= sealed_upto
    RETURNING t.*
  ), placed AS (
    SELECT m.*, ((row_number() OVER (PARTITION BY m.lexeme ORDER BY m.doc) - 1) / 128)::integer AS part
    FROM moving m
  )
  INSERT INTO keyword_blocks (lexeme, first_doc, last_doc, n, max_tf_a, max_tf_b, max_tf_c, max_tf_d,
                              min_len_a, min_len_b, min_len_c, min_len_d, postings)
  SELECT lexeme, min(doc), max(doc), count(*),
         max(tf_a), max(tf_b), max(tf_c), max(tf_d), min(len_a), min(len_b), min(len_c), min(len_d),
         string_agg(int4send(doc::integer) || int2send(tf_a) || int2send(tf_b) || int2send(tf_c) || int2send(tf_d)
                    || int2send(len_a) || int2send(len_b) || int2send(len_c) || int4send(len_d), ''::bytea ORDER BY doc)
  FROM placed
  GROUP BY lexeme, part;
  UPDATE keyword_seal SET upto = sealed_upto;
  RETURN moved;
END
$$;
