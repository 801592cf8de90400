-- A large document sealed a slice of its words at a time (issue 13: no statement may hold PGlite's only thread for
-- more than ~1 s while searches wait). A seal moved whole documents, and a document's cost is its distinct words:
-- each gets a block row and a key of its own. On /usr/share a 2,000,000-character text (Boost's copyright files,
-- 38,168 distinct words) made one seal statement of 1.6–1.7 s, however small the slice was sized.
--
-- Now a document with more distinct words (keyword_docs.lexemes, counted by the publish) than the seal's
-- max_postings is sealed alone, max_postings of its words (in lexeme order) per call; partial_doc and
-- partial_lexeme say how far it got. The invariant becomes: every document at or below `upto` is sealed; of
-- partial_doc, the postings of lexemes up to partial_lexeme are in blocks and the rest in the tail; every other
-- document above `upto` is in the tail. A search reads each lexeme's blocks and then its tail, which stays right
-- word by word: for a lexeme already sealed, the partial document's posting sits in a block below every tail
-- document; for one not yet sealed, in the tail above every sealed document. Scores and the top k are unchanged.

ALTER TABLE keyword_seal
  -- the document being sealed in slices (NULL: none), always the lowest above upto
  ADD COLUMN partial_doc bigint,
  -- its last lexeme sealed so far
  ADD COLUMN partial_lexeme text;

-- A document's distinct lexemes (its tail rows, then its postings), counted where they are written. NULL for
-- the documents written before this migration: their length in words bounds it.
ALTER TABLE keyword_docs ADD COLUMN lexemes integer;

-- 0014's publish, which now also counts the document's lexemes.
CREATE OR REPLACE FUNCTION filesift_keyword_publish(file bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH tf AS (
    SELECT u.lexeme,
           least(coalesce(sum(cardinality(u.positions)) FILTER (WHERE s.seg = -3), 0), 32767) AS a,
           least(coalesce(sum(cardinality(u.positions)) FILTER (WHERE s.seg = -2), 0), 32767) AS b,
           least(coalesce(sum(cardinality(u.positions)) FILTER (WHERE s.seg = -1), 0), 32767) AS c,
           least(coalesce(sum(cardinality(u.positions)) FILTER (WHERE s.seg > 0), 0), 32767) AS d
    FROM file_segments s, unnest(s.tsv) AS u
    WHERE s.file_id = file
    GROUP BY u.lexeme
  ), len AS (
    SELECT least(coalesce(sum(a), 0), 32767) AS a, least(coalesce(sum(b), 0), 32767) AS b,
           least(coalesce(sum(c), 0), 32767) AS c, least(coalesce(sum(d), 0), 2147483647) AS d,
           count(*)::integer AS n
    FROM tf
  ), doc AS (
    INSERT INTO keyword_docs (file_id, len_a, len_b, len_c, len_d, lexemes)
    SELECT file, a, b, c, d, n FROM len
    RETURNING doc
  )
  INSERT INTO keyword_tail (lexeme, doc, tf_a, tf_b, tf_c, tf_d, len_a, len_b, len_c, len_d)
  SELECT tf.lexeme, doc.doc, tf.a, tf.b, tf.c, tf.d, len.a, len.b, len.c, len.d
  FROM tf CROSS JOIN len CROSS JOIN doc;
END
$$;

-- A leaving document's sealed postings are listed dead: those of a partly sealed one up to its watermark too.
CREATE OR REPLACE FUNCTION filesift_keyword_bury(file bigint) RETURNS void LANGUAGE sql AS $$
  WITH w AS (SELECT upto, partial_doc, partial_lexeme FROM keyword_seal FOR SHARE)
  INSERT INTO keyword_dead (lexeme, doc)
  SELECT DISTINCT u.lexeme, d.doc
  FROM w, keyword_docs d JOIN file_segments s ON s.file_id = d.file_id CROSS JOIN LATERAL unnest(s.tsv) AS u
  WHERE d.file_id = file AND (d.doc <= w.upto OR (d.doc = w.partial_doc AND u.lexeme <= w.partial_lexeme))
  ON CONFLICT DO NOTHING
$$;

DROP FUNCTION filesift_keyword_seal(integer);

-- Seals the lowest unsealed documents, at most max_docs, up to the first large one (more words than
-- max_postings); a large one, when it comes first, alone and max_postings of its lexemes per call. Returns the
-- documents wholly sealed by the call, the postings it moved and whether it sealed (part of) a large one.
CREATE FUNCTION filesift_keyword_seal(max_docs integer, max_postings integer DEFAULT 8192)
  RETURNS TABLE (docs_sealed integer, postings_moved integer, large_document boolean) LANGUAGE plpgsql AS $$
DECLARE
  sealed_below bigint;
  large bigint;
  after text;
  sealed_upto bigint;
  last_lexeme text;
  moved integer;
BEGIN
  IF max_docs < 1 OR max_postings < 1 THEN
    RAISE EXCEPTION 'bad seal slice: % documents, % postings', max_docs, max_postings;
  END IF;
  -- FOR UPDATE: the watermark's row is the first lock of everything that moves postings (0015).
  SELECT s.upto, s.partial_doc, s.partial_lexeme INTO sealed_below, large, after FROM keyword_seal s FOR UPDATE;
  IF large IS NULL THEN
    -- The first large document among the slice's (the lowest max_docs above the watermark).
    SELECT b.doc INTO large
    FROM (SELECT d.doc, coalesce(d.lexemes, d.len_a::bigint + d.len_b + d.len_c + d.len_d) AS lexemes
          FROM keyword_docs d WHERE d.doc > sealed_below ORDER BY d.doc LIMIT max_docs) AS b
    WHERE b.lexemes > max_postings
    ORDER BY b.doc LIMIT 1;
  END IF;

  IF large IS NOT NULL AND NOT EXISTS (SELECT 1 FROM keyword_docs d WHERE d.doc > sealed_below AND d.doc < large) THEN
    -- A running compaction's copy may have passed lexemes this slice adds blocks to: it is void (as a seal's
    -- new watermark voids it, compaction.ts), and upkeep runs none while it seals.
    IF (SELECT s.compaction_upto FROM keyword_seal s) IS NOT NULL THEN
      DROP TABLE IF EXISTS keyword_blocks_next;
      TRUNCATE keyword_compaction_dead;
      UPDATE keyword_seal SET compaction_upto = NULL, compaction_cursor = NULL;
    END IF;
    WITH slice AS (
      SELECT t.lexeme FROM keyword_tail t
      WHERE t.doc = large AND (after IS NULL OR t.lexeme > after)
      ORDER BY t.lexeme LIMIT max_postings
    ), moving AS (
      DELETE FROM keyword_tail t USING slice s WHERE t.doc = large AND t.lexeme = s.lexeme
      RETURNING t.*
    ), placed AS (
      INSERT INTO keyword_blocks (lexeme, first_doc, last_doc, n, max_tf_a, max_tf_b, max_tf_c, max_tf_d,
                                  min_len_a, min_len_b, min_len_c, min_len_d, postings)
      SELECT m.lexeme, m.doc, m.doc, 1, m.tf_a, m.tf_b, m.tf_c, m.tf_d, m.len_a, m.len_b, m.len_c, m.len_d,
             int4send(m.doc::integer) || int2send(m.tf_a) || int2send(m.tf_b) || int2send(m.tf_c) || int2send(m.tf_d)
             || int2send(m.len_a) || int2send(m.len_b) || int2send(m.len_c) || int4send(m.len_d)
      FROM moving m
      RETURNING lexeme
    )
    SELECT count(*)::integer, max(p.lexeme) INTO moved, last_lexeme FROM placed p;
    postings_moved := moved;
    large_document := true;
    IF moved < max_postings THEN
      -- The document's last words (or none: it left meanwhile, its sealed postings listed dead by its burial).
      UPDATE keyword_seal SET upto = large, partial_doc = NULL, partial_lexeme = NULL;
      docs_sealed := 1;
    ELSE
      UPDATE keyword_seal SET partial_doc = large, partial_lexeme = last_lexeme;
      docs_sealed := 0;
    END IF;
    RETURN NEXT;
    RETURN;
  END IF;

  SELECT max(b.doc), count(*) INTO sealed_upto, moved
  FROM (SELECT d.doc FROM keyword_docs d
        WHERE d.doc > sealed_below AND (large IS NULL OR d.doc < large)
        ORDER BY d.doc LIMIT max_docs) AS b;
  docs_sealed := moved;
  postings_moved := 0;
  large_document := false;
  IF moved = 0 THEN
    RETURN NEXT;
    RETURN;
  END IF;
  WITH moving AS (
    DELETE FROM keyword_tail t WHERE t.doc > sealed_below AND t.doc <= sealed_upto
    RETURNING t.*
  ), placed AS (
    SELECT m.*, ((row_number() OVER (PARTITION BY m.lexeme ORDER BY m.doc) - 1) / 128)::integer AS part
    FROM moving m
  ), written AS (
    INSERT INTO keyword_blocks (lexeme, first_doc, last_doc, n, max_tf_a, max_tf_b, max_tf_c, max_tf_d,
                                min_len_a, min_len_b, min_len_c, min_len_d, postings)
    SELECT lexeme, min(doc), max(doc), count(*),
           max(tf_a), max(tf_b), max(tf_c), max(tf_d), min(len_a), min(len_b), min(len_c), min(len_d),
           string_agg(int4send(doc::integer) || int2send(tf_a) || int2send(tf_b) || int2send(tf_c) || int2send(tf_d)
                      || int2send(len_a) || int2send(len_b) || int2send(len_c) || int4send(len_d), ''::bytea ORDER BY doc)
    FROM placed
    GROUP BY lexeme, part
    RETURNING n
  )
  SELECT coalesce(sum(w.n), 0)::integer INTO postings_moved FROM written w;
  UPDATE keyword_seal SET upto = sealed_upto;
  RETURN NEXT;
END
$$;
