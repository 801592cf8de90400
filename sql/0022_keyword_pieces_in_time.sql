-- A long text's keyword pieces written against a time budget as well as a count (issue 13: no store call may hold
-- PGlite's only thread for more than ~1 s). A slice was 16 pieces of up to 16,000 bytes, ~50 ms of PostgreSQL's
-- parser for prose; but the parser is quadratic in a run of letters, digits and underscores without a space
-- (rustdoc's search index files: 615 ms a piece against 4–5 for prose, bench in docs/benchmarks/corpus.md, stop 61),
-- and one write of such a 262,152-character file held the store's thread for 4.3 s while searches waited.
--
-- Now the pieces of a call are parsed and written one at a time, and the call stops after the piece that reaches
-- `filesift.keyword_slice_ms` milliseconds since it began (unset or empty: no time bound, as before; 0: one piece a
-- call). At least one piece is written a call, so every call makes progress. The pieces, their segments and the
-- postings are the same however the text is sliced: only where a call stops moves.
CREATE OR REPLACE FUNCTION filesift_keyword_add_pieces(file bigint, body text, from_byte integer, first_seg integer, max_pieces integer,
                                                       OUT next_byte integer, OUT next_seg integer) LANGUAGE plpgsql AS $$
DECLARE
  budget_ms double precision := nullif(current_setting('filesift.keyword_slice_ms', true), '')::double precision;
  started timestamptz := clock_timestamp();
  p record;
BEGIN
  next_seg := first_seg;
  FOR p IN SELECT pieces.piece, pieces.end_byte FROM filesift_keyword_pieces(body, from_byte, max_pieces) AS pieces LOOP
    INSERT INTO file_segments (file_id, seg, tsv) VALUES (file, next_seg, setweight(to_tsvector('filesift_english', p.piece), 'D'));
    next_byte := p.end_byte;
    next_seg := next_seg + 1;
    EXIT WHEN budget_ms IS NOT NULL AND extract(epoch FROM clock_timestamp() - started) * 1000 >= budget_ms;
  END LOOP;
  IF next_byte IS NULL OR next_byte >= octet_length(body) THEN
    next_byte := NULL;
  END IF;
END
$$;
