-- A long text's postings written in parts (issue 13: no statement may hold PGlite's only thread for more than
-- ~1 s while searches wait). 0013 cut a long text's parsing into slices, but its last call still wrote every
-- posting in one statement, a tail row per distinct word: 0.5–1.3 s for the largest vocabularies (a coordinate
-- file's 54,267 words in the Debian corpus, Boost's copyright on /usr/share). With its sealing in parts (0019),
-- that was the longest statement left on real trees.
--
-- Now the continue call that finds every piece in writes the document (its keyword_docs row: lengths and distinct
-- words, from all of them) and the postings of its first max_postings lexemes (in lexeme order); each further call
-- writes the next max_postings, keyword_pending.publish_after saying how far it got, until a call writes fewer.
-- Meanwhile the document is searchable by the words written so far (its lengths, and so its scores, are final from
-- the first part), and a seal stays below it: a seal that passed it would leave the words still to come in the
-- tail below sealed documents, out of the document order every reader relies on. A stop or a crash between the
-- parts leaves the pending row, which the upkeep finishes at the next start; a new write of the file or its
-- deletion supersedes it (0013's trigger and cascade). A text indexed in one statement (up to 16 pieces) is
-- published with it, whole, as before.

ALTER TABLE keyword_pending
  -- once the document is written: the last lexeme whose postings are in (NULL: none yet)
  ADD COLUMN publish_after text;

-- One part of a document's postings: the first part (after IS NULL) also writes its keyword_docs row, from all its
-- words. Returns the last lexeme written when max_postings were (more may follow), NULL when the document is done.
CREATE FUNCTION filesift_keyword_publish_part(file bigint, after text, max_postings integer) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  written integer;
  last_lexeme text;
BEGIN
  IF after IS NULL THEN
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
      RETURNING doc, len_a, len_b, len_c, len_d
    ), tail AS (
      INSERT INTO keyword_tail (lexeme, doc, tf_a, tf_b, tf_c, tf_d, len_a, len_b, len_c, len_d)
      SELECT t.lexeme, doc.doc, t.a, t.b, t.c, t.d, doc.len_a, doc.len_b, doc.len_c, doc.len_d
      FROM (SELECT * FROM tf ORDER BY lexeme LIMIT max_postings) AS t CROSS JOIN doc
      RETURNING lexeme
    )
    SELECT count(*)::integer, max(tail.lexeme) INTO written, last_lexeme FROM tail;
  ELSE
    WITH tf AS (
      SELECT u.lexeme,
             least(coalesce(sum(cardinality(u.positions)) FILTER (WHERE s.seg = -3), 0), 32767) AS a,
             least(coalesce(sum(cardinality(u.positions)) FILTER (WHERE s.seg = -2), 0), 32767) AS b,
             least(coalesce(sum(cardinality(u.positions)) FILTER (WHERE s.seg = -1), 0), 32767) AS c,
             least(coalesce(sum(cardinality(u.positions)) FILTER (WHERE s.seg > 0), 0), 32767) AS d
      FROM file_segments s, unnest(s.tsv) AS u
      WHERE s.file_id = file AND u.lexeme > after
      GROUP BY u.lexeme
      ORDER BY u.lexeme
      LIMIT max_postings
    ), tail AS (
      INSERT INTO keyword_tail (lexeme, doc, tf_a, tf_b, tf_c, tf_d, len_a, len_b, len_c, len_d)
      SELECT t.lexeme, d.doc, t.a, t.b, t.c, t.d, d.len_a, d.len_b, d.len_c, d.len_d
      FROM tf AS t CROSS JOIN keyword_docs d
      WHERE d.file_id = file
      RETURNING lexeme
    )
    SELECT count(*)::integer, max(tail.lexeme) INTO written, last_lexeme FROM tail;
  END IF;
  RETURN CASE WHEN written < max_postings THEN NULL ELSE last_lexeme END;
END
$$;

DROP FUNCTION filesift_keyword_continue(bigint, integer);

-- 0013's continue, which now writes the postings in parts of max_postings. Answers true when nothing of the file
-- is pending any more (also when it was not: finished, re-indexed or deleted meanwhile).
CREATE FUNCTION filesift_keyword_continue(file bigint, max_pieces integer, max_postings integer DEFAULT 8192)
  RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  pending keyword_pending%ROWTYPE;
  rest_byte integer;
  rest_seg integer;
  last_lexeme text;
BEGIN
  IF max_pieces < 1 OR max_postings < 1 THEN
    RAISE EXCEPTION 'bad keyword slice: % pieces, % postings', max_pieces, max_postings;
  END IF;
  SELECT * INTO pending FROM keyword_pending WHERE file_id = file FOR UPDATE;
  IF NOT FOUND THEN
    RETURN true;
  END IF;
  IF pending.next_byte IS NULL THEN
    last_lexeme := filesift_keyword_publish_part(file, pending.publish_after, max_postings);
    IF last_lexeme IS NULL THEN
      DELETE FROM keyword_pending WHERE file_id = file;
      RETURN true;
    END IF;
    UPDATE keyword_pending SET publish_after = last_lexeme WHERE file_id = file;
    RETURN false;
  END IF;
  SELECT a.next_byte, a.next_seg INTO rest_byte, rest_seg
  FROM files f, filesift_keyword_add_pieces(file, f.content, pending.next_byte, pending.next_seg, max_pieces) AS a
  WHERE f.id = file;
  UPDATE keyword_pending SET next_byte = rest_byte, next_seg = coalesce(rest_seg, pending.next_seg) WHERE file_id = file;
  RETURN false;
END
$$;

-- 0019's seal, held below a document whose postings are still being written.
CREATE OR REPLACE FUNCTION filesift_keyword_seal(max_docs integer, max_postings integer DEFAULT 8192)
  RETURNS TABLE (docs_sealed integer, postings_moved integer, large_document boolean) LANGUAGE plpgsql AS $$
DECLARE
  sealed_below bigint;
  large bigint;
  after text;
  sealed_upto bigint;
  last_lexeme text;
  moved integer;
  held bigint;
BEGIN
  IF max_docs < 1 OR max_postings < 1 THEN
    RAISE EXCEPTION 'bad seal slice: % documents, % postings', max_docs, max_postings;
  END IF;
  -- FOR UPDATE: the watermark's row is the first lock of everything that moves postings (0015).
  SELECT s.upto, s.partial_doc, s.partial_lexeme INTO sealed_below, large, after FROM keyword_seal s FOR UPDATE;
  -- The lowest document still being written (its file pending with a document): nothing at or above it is sealed.
  SELECT coalesce(min(d.doc), 9223372036854775807) INTO held FROM keyword_pending p JOIN keyword_docs d ON d.file_id = p.file_id;
  IF large IS NULL THEN
    -- The first large document among the slice's (the lowest max_docs above the watermark, below any held one).
    SELECT b.doc INTO large
    FROM (SELECT d.doc, coalesce(d.lexemes, d.len_a::bigint + d.len_b + d.len_c + d.len_d) AS lexemes
          FROM keyword_docs d WHERE d.doc > sealed_below AND d.doc < held ORDER BY d.doc LIMIT max_docs) AS b
    WHERE b.lexemes > max_postings
    ORDER BY b.doc LIMIT 1;
  END IF;

  IF large IS NOT NULL AND large < held AND NOT EXISTS (SELECT 1 FROM keyword_docs d WHERE d.doc > sealed_below AND d.doc < large) THEN
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
        WHERE d.doc > sealed_below AND d.doc < held AND (large IS NULL OR d.doc < large)
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
