-- A long document's keyword index written in slices (issue 13: no statement may hold PGlite's only thread for
-- long while searches wait). One statement used to cut a file's whole text into pieces, run PostgreSQL's parser
-- and stemmer over all of them and write every posting: ~1 s for a 2,000,000-character text (the default text
-- limit), 0.39 s of it in to_tsvector. Now a write that sets filesift.keyword_slice_pieces (the files repository
-- does, for long texts) indexes the short fields and at most that many pieces of the text; the rest waits in
-- keyword_pending and filesift_keyword_continue() adds it, a bounded number of pieces per call, each call its own
-- statement and transaction, so searches run in between. The postings (tf per lexeme and field, the lengths,
-- keyword_docs) are written once, by the last call, from all the pieces: the same postings, the same BM25 scores
-- as the one-statement path. Until then the file has no keyword document (keyword search does not find it yet;
-- every other part of it is there). A pending row outlives a crash; the store finishes it at the next start.
CREATE TABLE keyword_pending (
  file_id bigint PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
  -- where the next piece starts, a byte offset into the UTF-8 text; NULL: every piece is in, the postings remain
  next_byte integer,
  -- the next piece's segment number
  next_seg integer NOT NULL
);

-- Up to max_pieces pieces of body from byte from_byte, with the byte offset after each: pieces of at most
-- max_bytes bytes, cut after the last ASCII whitespace in a piece's second half, else at a character boundary
-- (0006's filesift_keyword_segments, which now calls this). A cut depends only on where its piece starts, so a
-- text cut in several calls gives the pieces of one call.
CREATE FUNCTION filesift_keyword_pieces(body text, from_byte integer, max_pieces integer, max_bytes integer DEFAULT 16000)
  RETURNS TABLE (piece text, end_byte integer) LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  bytes bytea;
  total integer;
  pos integer := from_byte;
  i integer;
  cut integer;
  made integer := 0;
BEGIN
  IF body IS NULL OR body = '' THEN
    RETURN;
  END IF;
  bytes := convert_to(body, 'UTF8');
  total := length(bytes);
  IF from_byte = 0 AND total <= max_bytes THEN
    piece := body; end_byte := total;
    RETURN NEXT;
    RETURN;
  END IF;
  WHILE made < max_pieces AND pos < total LOOP
    IF total - pos > max_bytes THEN
      i := pos + max_bytes - 1;
      WHILE i >= pos + max_bytes / 2 AND get_byte(bytes, i) NOT IN (9, 10, 11, 12, 13, 32) LOOP
        i := i - 1;
      END LOOP;
      IF i >= pos + max_bytes / 2 THEN
        cut := i - pos + 1;
      ELSE
        cut := max_bytes;
        WHILE (get_byte(bytes, pos + cut) & 192) = 128 LOOP
          cut := cut - 1;
        END LOOP;
      END IF;
    ELSE
      cut := total - pos;
    END IF;
    piece := convert_from(substring(bytes FROM pos + 1 FOR cut), 'UTF8');
    pos := pos + cut;
    end_byte := pos;
    made := made + 1;
    RETURN NEXT;
  END LOOP;
END
$$;

-- The whole text's pieces: one cutting algorithm for both paths, so that the slices are the whole's pieces by
-- construction (this replaces 0006's copy of the loop).
CREATE OR REPLACE FUNCTION filesift_keyword_segments(body text, max_bytes integer DEFAULT 16000)
  RETURNS SETOF text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT p.piece FROM filesift_keyword_pieces(body, 0, 2147483647, max_bytes) AS p
$$;

-- tf per lexeme and field from all of a file's segments, its lengths, its keyword document and tail postings
-- (moved here unchanged from filesift_keyword_reindex, which calls it when the text is in whole).
CREATE FUNCTION filesift_keyword_publish(file bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH tf AS (
    SELECT u.lexeme,
           least(sum(coalesce(cardinality(array_positions(u.weights, 'A')), 0)), 32767) AS a,
           least(sum(coalesce(cardinality(array_positions(u.weights, 'B')), 0)), 32767) AS b,
           least(sum(coalesce(cardinality(array_positions(u.weights, 'C')), 0)), 32767) AS c,
           least(sum(coalesce(cardinality(array_positions(u.weights, 'D')), 0)), 32767) AS d
    FROM file_segments s, unnest(s.tsv) AS u
    WHERE s.file_id = file
    GROUP BY u.lexeme
  ), len AS (
    SELECT least(coalesce(sum(a), 0), 32767) AS a, least(coalesce(sum(b), 0), 32767) AS b,
           least(coalesce(sum(c), 0), 32767) AS c, least(coalesce(sum(d), 0), 2147483647) AS d
    FROM tf
  ), doc AS (
    INSERT INTO keyword_docs (file_id, len_a, len_b, len_c, len_d)
    SELECT file, a, b, c, d FROM len
    RETURNING doc
  )
  INSERT INTO keyword_tail (lexeme, doc, tf_a, tf_b, tf_c, tf_d, len_a, len_b, len_c, len_d)
  SELECT tf.lexeme, doc.doc, tf.a, tf.b, tf.c, tf.d, len.a, len.b, len.c, len.d
  FROM tf CROSS JOIN len CROSS JOIN doc;
END
$$;

-- Writes the segments of up to max_pieces pieces of body from byte from_byte, numbered from first_seg: the one
-- place both the trigger and filesift_keyword_continue add a text's pieces. next_byte: where the next piece starts,
-- NULL once the text is all in; next_seg: its segment number.
CREATE FUNCTION filesift_keyword_add_pieces(file bigint, body text, from_byte integer, first_seg integer, max_pieces integer,
                                            OUT next_byte integer, OUT next_seg integer) LANGUAGE plpgsql AS $$
BEGIN
  WITH pieces AS (
    SELECT p.piece, p.end_byte, first_seg + p.ord::integer - 1 AS seg
    FROM filesift_keyword_pieces(body, from_byte, max_pieces) WITH ORDINALITY AS p (piece, end_byte, ord)
  ), written AS (
    INSERT INTO file_segments (file_id, seg, tsv)
    SELECT file, seg, setweight(to_tsvector('filesift_english', piece), 'D') FROM pieces
  )
  SELECT max(end_byte), max(seg) + 1 INTO next_byte, next_seg FROM pieces;
  IF next_byte IS NULL OR next_byte >= octet_length(body) THEN
    next_byte := NULL;
  END IF;
END
$$;

-- (Re)builds one file's document: the previous one leaves, a new one (new ordinal) gets segments and tail postings.
-- With filesift.keyword_slice_pieces set (a positive number), at most that many pieces of the text now, the rest
-- left to filesift_keyword_continue.
CREATE OR REPLACE FUNCTION filesift_keyword_reindex() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  slice integer := coalesce(nullif(current_setting('filesift.keyword_slice_pieces', true), '')::integer, 0);
  rest_byte integer;
  rest_seg integer;
BEGIN
  PERFORM filesift_keyword_bury(NEW.id);
  DELETE FROM keyword_docs WHERE file_id = NEW.id;
  DELETE FROM file_segments WHERE file_id = NEW.id;
  DELETE FROM keyword_pending WHERE file_id = NEW.id;

  INSERT INTO file_segments (file_id, seg, tsv)
  SELECT NEW.id, f.seg, f.tsv
  FROM (VALUES
    (-3, setweight(to_tsvector('filesift_english',
                               filesift_filename_words(NEW.filename) || ' and the ' || coalesce(NEW.title, '')), 'A')),
    (-2, setweight(to_tsvector('filesift_english', coalesce(array_to_string(NEW.keywords, ' and the '), '')), 'B')),
    (-1, setweight(to_tsvector('filesift_english', coalesce(NEW.summary, '')), 'C'))
  ) AS f (seg, tsv)
  WHERE length(f.tsv) > 0;

  SELECT a.next_byte, a.next_seg INTO rest_byte, rest_seg
  FROM filesift_keyword_add_pieces(NEW.id, NEW.content, 0, 1, CASE WHEN slice > 0 THEN slice ELSE 2147483647 END) AS a;
  IF rest_byte IS NULL THEN
    PERFORM filesift_keyword_publish(NEW.id);
  ELSE
    INSERT INTO keyword_pending (file_id, next_byte, next_seg) VALUES (NEW.id, rest_byte, rest_seg);
  END IF;
  RETURN NULL;
END
$$;

-- One more slice of a pending file: up to max_pieces pieces, or, once they are all in, its postings. Answers true
-- when nothing of the file is pending any more (also when it was not: finished, re-indexed or deleted meanwhile).
CREATE FUNCTION filesift_keyword_continue(file bigint, max_pieces integer) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  pending keyword_pending%ROWTYPE;
  rest_byte integer;
  rest_seg integer;
BEGIN
  SELECT * INTO pending FROM keyword_pending WHERE file_id = file FOR UPDATE;
  IF NOT FOUND THEN
    RETURN true;
  END IF;
  IF pending.next_byte IS NULL THEN
    PERFORM filesift_keyword_publish(file);
    DELETE FROM keyword_pending WHERE file_id = file;
    RETURN true;
  END IF;
  SELECT a.next_byte, a.next_seg INTO rest_byte, rest_seg
  FROM files f, filesift_keyword_add_pieces(file, f.content, pending.next_byte, pending.next_seg, max_pieces) AS a
  WHERE f.id = file;
  UPDATE keyword_pending SET next_byte = rest_byte, next_seg = coalesce(rest_seg, pending.next_seg) WHERE file_id = file;
  RETURN false;
END
$$;
