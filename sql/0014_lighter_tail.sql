-- Lighter keyword writes (issue 17): the store thread's largest part is a file's keyword index, and of it the tail
-- postings (~800 rows a Debian document) cost the most to write.
--
-- keyword_tail's primary key carried every column (INCLUDE) so that a search could read a lexeme's tail postings
-- by index-only scan. That needs the visibility map set, which only VACUUM does: PostgreSQL's autovacuum on a
-- server, nothing on PGlite, whose searches therefore read the heap anyway and paid the wide index at every write.
-- The tail is short-lived (sealed into blocks by upkeep, then truncated on PGlite), so a search reads few of its
-- rows on either engine. Measured on PGlite, 800 Debian documents' postings written per document (CPU ms per file):
-- the key with INCLUDE 2.55, without 1.86, the heap alone 1.05 (the document index adds ~0.45 in every case).
ALTER TABLE keyword_tail DROP CONSTRAINT keyword_tail_pkey;
ALTER TABLE keyword_tail ADD CONSTRAINT keyword_tail_pkey PRIMARY KEY (lexeme, doc);

-- A file's tf per lexeme and field, counted by segment instead of by weight label: each segment now holds one
-- field (-3 name and title: A, -2 keywords: B, -1 summary: C, 1.. content: D, since 0007), so a lexeme's positions
-- in a segment are its tf there, and the four array_positions() per lexeme and segment go. Only the segments of a
-- file indexed before 0007 mixed labels in a segment 0, and publish runs only right after a file's segments were
-- all written again. Same postings (tests compare them with the weight-label count).
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
