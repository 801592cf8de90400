-- One lock order for everything that moves keyword postings between the tail, the blocks and the dead list
-- (PostgreSQL, where store calls run side by side; PGlite runs one statement at a time and never waits on a lock).
--
-- A seal deleted a range of tail rows while a deletion of files deleted the tail rows of their documents (the
-- cascade to keyword_docs, then filesift_keyword_tail_forget), each in its own order: "deadlock detected" (seen
-- in CI: upkeep sealing after a run while the folder was removed). And a file buried while a seal ran read the
-- watermark before the seal committed, so a document sealed meanwhile could leave without its postings listed dead.
-- Now the watermark's row is the first thing each of them locks: a seal and a compaction step take it FOR UPDATE
-- (src/store/keyword/compaction.ts reads it so), a file that leaves with a keyword document takes it FOR SHARE
-- before it touches any posting. Two burials never wait on each other; a burial and a seal wait for each other
-- whole, and the burial then reads the watermark the seal committed.

CREATE OR REPLACE FUNCTION filesift_keyword_bury(file bigint) RETURNS void LANGUAGE sql AS $$
  INSERT INTO keyword_dead (lexeme, doc)
  SELECT DISTINCT u.lexeme, d.doc
  FROM keyword_docs d JOIN file_segments s ON s.file_id = d.file_id CROSS JOIN LATERAL unnest(s.tsv) AS u
  WHERE d.file_id = file AND d.doc <= (SELECT upto FROM keyword_seal FOR SHARE)
  ON CONFLICT DO NOTHING
$$;

CREATE OR REPLACE FUNCTION filesift_keyword_seal(max_docs integer) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  sealed_below bigint;
  sealed_upto bigint;
  moved integer;
BEGIN
  SELECT s.upto INTO sealed_below FROM keyword_seal s FOR UPDATE;
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
