-- The keyword (BM25) side of the index: postings, per-file lengths, collection statistics and positions.
-- Runs unchanged on PGlite (PostgreSQL 18, WASM) and PostgreSQL 15+; built-in parser, dictionaries and
-- plpgsql only. Everything is maintained by triggers on files: the store only writes files rows.
--
-- Fields and their tsvector weight labels (field weights are query-time settings, not baked in):
--   A = file name words + title, B = keywords, C = summary, D = content.
--
-- Exact BM25 from a postings table, not from the stored tsvector of GIN candidates (both measured,
-- bench/ranking-experiment.ts and the ranking report):
--   * BM25 needs tf per (lexeme, file). A tsvector yields it only through unnest(tsv) of each whole candidate
--     document: p50 141 ms at 5k files against 7 ms for postings read by index-only scan.
--   * a tsvector caps positions at 16383 and at 256 per lexeme and holds at most 1 MB of lexemes, so tf and
--     lengths taken from one tsvector are wrong, or the insert fails, for long documents.
--   * df = the number of postings of the lexeme, counted on the covering primary key (one index-only range
--     per query lexeme); a GIN count would visit the heap of every matching file.
-- Phrases and exclusions need positions: per-segment tsvectors, GIN-indexed, are kept for them.
-- Cost: SciFact's 5,183 abstracts (8 MB of text) take 480k postings, file_terms 77 MB with its indexes,
-- file_segments 19 MB; PGlite loads 3-5 ms per file.

-- English: default parser, Snowball English stemmer (Porter2) and its stop list, but a hyphenated word is
-- indexed by its parts only ("TNF-alpha" -> tnf, alpha; not also "tnf-alpha"), as Lucene's StandardTokenizer
-- does. Measured on SciFact train (flat BM25, best k1/b each): nDCG@10 0.7039 vs 0.6997 with the compound
-- kept and 0.6674 with 'simple' (bench/ranking-experiment.ts). Our own copy, so a later migration can change
-- it without touching pg_catalog.
CREATE TEXT SEARCH CONFIGURATION filesift_english (COPY = pg_catalog.english);
ALTER TEXT SEARCH CONFIGURATION filesift_english DROP MAPPING FOR asciihword, hword, numhword;

-- File name as words: "Q3_budget-2024.final.xlsx" -> "Q3 budget 2024 final xlsx". The default parser
-- would otherwise read "report.pdf" as one host name token.
CREATE FUNCTION filesift_filename_words(name text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN regexp_replace(coalesce(name, ''), '[[:punct:][:space:]]+', ' ', 'g');

-- File name without its last extension, lower-cased: the key of the exact-file-name tier.
CREATE FUNCTION filesift_filename_stem(name text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN lower(regexp_replace(coalesce(name, ''), '\.[^./]*$', ''));

-- Content split into pieces of at most max_bytes bytes, cut after a whitespace. Each piece becomes one
-- tsvector, far below the 1 MB / 16383-position / 256-positions-per-lexeme limits, so no document is too long
-- to index and tf is exact except for a lexeme repeated > 256 times within one piece. Works on the UTF-8 bytes
-- (O(1) offsets; text offsets are O(n) each, which made a 50 MB text quadratic); an ASCII whitespace byte never
-- occurs inside a multi-byte character, and a hard cut (a piece without whitespace) backs off to a character
-- boundary.
CREATE FUNCTION filesift_keyword_segments(body text, max_bytes integer DEFAULT 16000)
  RETURNS SETOF text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  bytes bytea;
  total integer;
  pos integer := 0;
  i integer;
  cut integer;
BEGIN
  IF body IS NULL OR body = '' THEN
    RETURN;
  END IF;
  IF octet_length(body) <= max_bytes THEN
    RETURN NEXT body;
    RETURN;
  END IF;
  bytes := convert_to(body, 'UTF8');
  total := length(bytes);
  WHILE total - pos > max_bytes LOOP
    -- back up to the last whitespace in the second half of the window
    i := pos + max_bytes - 1;
    WHILE i >= pos + max_bytes / 2 AND get_byte(bytes, i) NOT IN (9, 10, 11, 12, 13, 32) LOOP
      i := i - 1;
    END LOOP;
    IF i >= pos + max_bytes / 2 THEN
      cut := i - pos + 1;
    ELSE
      cut := max_bytes;
      WHILE (get_byte(bytes, pos + cut) & 192) = 128 LOOP -- a UTF-8 continuation byte starts the rest
        cut := cut - 1;
      END LOOP;
    END IF;
    RETURN NEXT convert_from(substring(bytes FROM pos + 1 FOR cut), 'UTF8');
    pos := pos + cut;
  END LOOP;
  RETURN NEXT convert_from(substring(bytes FROM pos + 1), 'UTF8');
END
$$;

-- Positions, for phrases and exclusions. seg 0 holds the short fields (A, B, C); seg 1.. the content (D).
CREATE TABLE file_segments (
  file_id bigint NOT NULL REFERENCES files (id) ON DELETE CASCADE,
  seg integer NOT NULL,
  tsv tsvector NOT NULL,
  PRIMARY KEY (file_id, seg)
);
CREATE INDEX file_segments_tsv_idx ON file_segments USING gin (tsv);

-- Postings: term frequency of each lexeme in each field, and the file's field lengths (denormalised: BM25
-- needs the length with every posting, and a join to keyword_docs per posting cost a third of the query).
-- The primary key covers them all, so a query reads a lexeme's postings (and counts its df) by index-only scan
-- once the visibility map is set: PostgreSQL's autovacuum does that; PGlite has no autovacuum, so the store
-- should run VACUUM (ANALYZE) after a burst of indexing (measured at 5k files: p50 6 ms after, 15-20 ms before).
-- The file_id index serves deletes and re-indexing.
CREATE TABLE file_terms (
  lexeme text NOT NULL,
  file_id bigint NOT NULL REFERENCES files (id) ON DELETE CASCADE,
  tf_a smallint NOT NULL,
  tf_b smallint NOT NULL,
  tf_c smallint NOT NULL,
  tf_d smallint NOT NULL,
  len_a smallint NOT NULL,
  len_b smallint NOT NULL,
  len_c smallint NOT NULL,
  len_d integer NOT NULL,
  PRIMARY KEY (lexeme, file_id) INCLUDE (tf_a, tf_b, tf_c, tf_d, len_a, len_b, len_c, len_d)
);
CREATE INDEX file_terms_file_id_idx ON file_terms (file_id);

-- Per-file field lengths (number of indexed tokens per field, stop words excluded, as in Lucene).
CREATE TABLE keyword_docs (
  file_id bigint PRIMARY KEY REFERENCES files (id) ON DELETE CASCADE,
  len_a integer NOT NULL,
  len_b integer NOT NULL,
  len_c integer NOT NULL,
  len_d integer NOT NULL
);

-- Collection statistics (N and the field length sums, for avgdl), one row, kept by a trigger.
CREATE TABLE keyword_stats (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  n_docs bigint NOT NULL DEFAULT 0,
  sum_a bigint NOT NULL DEFAULT 0,
  sum_b bigint NOT NULL DEFAULT 0,
  sum_c bigint NOT NULL DEFAULT 0,
  sum_d bigint NOT NULL DEFAULT 0
);
INSERT INTO keyword_stats DEFAULT VALUES;

CREATE FUNCTION filesift_keyword_stats_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE keyword_stats SET n_docs = n_docs + 1, sum_a = sum_a + NEW.len_a, sum_b = sum_b + NEW.len_b,
      sum_c = sum_c + NEW.len_c, sum_d = sum_d + NEW.len_d;
  ELSE
    UPDATE keyword_stats SET n_docs = n_docs - 1, sum_a = sum_a - OLD.len_a, sum_b = sum_b - OLD.len_b,
      sum_c = sum_c - OLD.len_c, sum_d = sum_d - OLD.len_d;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER keyword_docs_stats AFTER INSERT OR DELETE ON keyword_docs
  FOR EACH ROW EXECUTE FUNCTION filesift_keyword_stats_apply();

-- (Re)builds segments, postings and lengths of one file from its row.
CREATE FUNCTION filesift_keyword_reindex() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM keyword_docs WHERE file_id = NEW.id;
  DELETE FROM file_terms WHERE file_id = NEW.id;
  DELETE FROM file_segments WHERE file_id = NEW.id;

  INSERT INTO file_segments (file_id, seg, tsv)
  SELECT NEW.id, 0,
         setweight(to_tsvector('filesift_english',
                               filesift_filename_words(NEW.filename) || ' ' || coalesce(NEW.title, '')), 'A')
      || setweight(to_tsvector('filesift_english', coalesce(array_to_string(NEW.keywords, ', '), '')), 'B')
      || setweight(to_tsvector('filesift_english', coalesce(NEW.summary, '')), 'C')
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
  )
  INSERT INTO file_terms (lexeme, file_id, tf_a, tf_b, tf_c, tf_d, len_a, len_b, len_c, len_d)
  SELECT tf.lexeme, NEW.id, tf.a, tf.b, tf.c, tf.d, len.a, len.b, len.c, len.d
  FROM tf CROSS JOIN len;
  RETURN NULL;
END
$$;

CREATE TRIGGER files_keyword_insert AFTER INSERT ON files
  FOR EACH ROW EXECUTE FUNCTION filesift_keyword_reindex();
CREATE TRIGGER files_keyword_update AFTER UPDATE OF filename, title, keywords, summary, content ON files
  FOR EACH ROW
  WHEN (OLD.filename IS DISTINCT FROM NEW.filename OR OLD.title IS DISTINCT FROM NEW.title
        OR OLD.keywords IS DISTINCT FROM NEW.keywords OR OLD.summary IS DISTINCT FROM NEW.summary
        OR OLD.content IS DISTINCT FROM NEW.content)
  EXECUTE FUNCTION filesift_keyword_reindex();

-- Exact-file-name tier (the directory scope uses files_path_prefix_idx from 0003_create_files).
CREATE INDEX files_filename_lower_idx ON files (lower(filename));
CREATE INDEX files_filename_stem_idx ON files (filesift_filename_stem(filename));
