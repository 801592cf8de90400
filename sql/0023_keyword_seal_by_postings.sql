-- A seal's slice bounded by its postings as well as its documents (issue 13: no store call may hold PGlite's only
-- thread for more than ~1 s while searches wait). A slice's time is its postings' (the tail's delete, the sort by
-- word, the blocks' insert: 5-12 µs each), but the upkeep sized it in documents from the last slice's rate, so a
-- slice sized on small files that met larger ones ran long: a whole home directory's first run (234,482 files,
-- stop 63) had seals of 99 ms on average and one of 1,338 ms, and one on its tenth took 18 s. Now the slice also
-- stops before the document that would take its postings past slice_postings (at least one document a call; the
-- default: no bound, as before), and the upkeep sizes both from their own rates, as it does compaction's blocks
-- and postings. cut_by_postings says the slice stopped there with documents left among its max_docs.
DROP FUNCTION filesift_keyword_seal(integer, integer);

CREATE FUNCTION filesift_keyword_seal(max_docs integer, max_postings integer DEFAULT 8192,
                                      slice_postings integer DEFAULT 2147483647)
  RETURNS TABLE (docs_sealed integer, postings_moved integer, large_document boolean, cut_by_postings boolean)
  LANGUAGE plpgsql AS $$
DECLARE
  sealed_below bigint;
  large bigint;
  after text;
  sealed_upto bigint;
  last_lexeme text;
  moved integer;
  held bigint;
  postings_bound boolean;
BEGIN
  IF max_docs < 1 OR max_postings < 1 OR slice_postings < 1 THEN
    RAISE EXCEPTION 'bad seal slice: % documents, % postings, % in all', max_docs, max_postings, slice_postings;
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
    cut_by_postings := false;
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

  -- The lowest max_docs documents, as far as their postings add up to slice_postings (the first always: below a
  -- large document it has at most max_postings).
  SELECT max(c.doc) FILTER (WHERE c.kept), count(*) FILTER (WHERE c.kept), bool_or(NOT c.kept)
  INTO sealed_upto, moved, postings_bound
  FROM (SELECT b.doc, row_number() OVER w = 1 OR sum(b.lexemes) OVER w <= slice_postings AS kept
        FROM (SELECT d.doc, coalesce(d.lexemes, d.len_a::bigint + d.len_b + d.len_c + d.len_d) AS lexemes
              FROM keyword_docs d
              WHERE d.doc > sealed_below AND d.doc < held AND (large IS NULL OR d.doc < large)
              ORDER BY d.doc LIMIT max_docs) AS b
        WINDOW w AS (ORDER BY b.doc ROWS UNBOUNDED PRECEDING)) AS c;
  docs_sealed := moved;
  postings_moved := 0;
  large_document := false;
  cut_by_postings := coalesce(postings_bound, false);
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
