-- A long text's postings written in parts (issue 13: no statement may hold PGlite's only thread for more than
-- ~1 s while searches wait). 0013 cut a long text's parsing into slices, but its last call still wrote every
-- posting in one statement, a tail row per distinct word: 0.5–1.3 s for the largest vocabularies (a coordinate
-- file's 54,267 words in the Debian corpus, Boost's copyright on /usr/share). With its sealing in parts (0019),
-- that was the longest statement left on real trees.
--
-- Now the continue call that finds every piece in counts the document's words once, from all of them: it writes
-- the document (its keyword_docs row: lengths and distinct words), the postings of its first max_postings words (in
-- lexeme order), and keeps the others' tf in keyword_pending (one array, in the pending row) for the next calls,
-- which write max_postings each, until none is left. Meanwhile the document is searchable by the words written so
-- far (its lengths, and so its scores, are final from the first part), and a seal stays below it: a seal that
-- passed it would leave the words still to come in the tail below sealed documents, out of the document order
-- every reader relies on. A stop or a crash between the parts leaves the pending row, which the upkeep finishes at
-- the next start; a new write of the file or its deletion supersedes it (0013's trigger and cascade). A text
-- indexed in one statement (up to 16 pieces) is published with it, whole, as before.

-- A word's tf in each field, as the tail holds it.
CREATE TYPE filesift_keyword_tf AS (lexeme text, a smallint, b smallint, c smallint, d smallint);

ALTER TABLE keyword_pending
  -- once the document is written: the tf of all its words in lexeme order, and the first not yet in the tail
  ADD COLUMN publish_rest filesift_keyword_tf[],
  ADD COLUMN publish_at integer;

-- One part of a file's postings: the first (nothing kept yet) counts all its words and writes its keyword_docs row.
-- Returns true when the document is complete.
CREATE FUNCTION filesift_keyword_publish_part(file bigint, max_postings integer) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  rest filesift_keyword_tf[];
  at integer;
  document keyword_docs%ROWTYPE;
BEGIN
  SELECT p.publish_rest, p.publish_at INTO rest, at FROM keyword_pending p WHERE p.file_id = file;
  IF at IS NULL THEN
    -- The tf per lexeme and field (0014's publish), sorted once.
    SELECT array_agg(ROW(t.lexeme, t.a, t.b, t.c, t.d)::filesift_keyword_tf ORDER BY t.lexeme) INTO rest
    FROM (
      SELECT u.lexeme,
             least(coalesce(sum(cardinality(u.positions)) FILTER (WHERE s.seg = -3), 0), 32767) AS a,
             least(coalesce(sum(cardinality(u.positions)) FILTER (WHERE s.seg = -2), 0), 32767) AS b,
             least(coalesce(sum(cardinality(u.positions)) FILTER (WHERE s.seg = -1), 0), 32767) AS c,
             least(coalesce(sum(cardinality(u.positions)) FILTER (WHERE s.seg > 0), 0), 32767) AS d
      FROM file_segments s, unnest(s.tsv) AS u
      WHERE s.file_id = file
      GROUP BY u.lexeme
    ) AS t;
    INSERT INTO keyword_docs (file_id, len_a, len_b, len_c, len_d, lexemes)
    SELECT file, least(coalesce(sum(x.a), 0), 32767), least(coalesce(sum(x.b), 0), 32767),
           least(coalesce(sum(x.c), 0), 32767), least(coalesce(sum(x.d), 0), 2147483647), count(*)::integer
    FROM unnest(rest) AS x
    RETURNING * INTO document;
    at := 1;
  ELSE
    SELECT * INTO document FROM keyword_docs k WHERE k.file_id = file;
  END IF;
  INSERT INTO keyword_tail (lexeme, doc, tf_a, tf_b, tf_c, tf_d, len_a, len_b, len_c, len_d)
  SELECT x.lexeme, document.doc, x.a, x.b, x.c, x.d, document.len_a, document.len_b, document.len_c, document.len_d
  FROM unnest(rest[at:least(at::bigint + max_postings - 1, 2147483647)::integer]) AS x;
  IF at::bigint + max_postings > coalesce(cardinality(rest), 0) THEN
    RETURN true;
  END IF;
  at := at + max_postings;
  UPDATE keyword_pending SET publish_rest = CASE WHEN publish_at IS NULL THEN rest ELSE publish_rest END, publish_at = at
  WHERE file_id = file;
  RETURN false;
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
BEGIN
  IF max_pieces < 1 OR max_postings < 1 THEN
    RAISE EXCEPTION 'bad keyword slice: % pieces, % postings', max_pieces, max_postings;
  END IF;
  SELECT * INTO pending FROM keyword_pending WHERE file_id = file FOR UPDATE;
  IF NOT FOUND THEN
    RETURN true;
  END IF;
  IF pending.next_byte IS NULL THEN
    IF filesift_keyword_publish_part(file, max_postings) THEN
      DELETE FROM keyword_pending WHERE file_id = file;
      RETURN true;
    END IF;
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
