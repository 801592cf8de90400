-- A chunk's text was stored beside its vector, yet nothing ever read it: snippets and previews come from
-- files.content, re-embedding reads files.content and cuts the chunks again. It doubled the text on disk (chunks
-- are short, so PostgreSQL stored them uncompressed: 14 MB of 140 MB for 1,059 Debian documents) and cost every
-- write. A chunk is its place in the file's text (start_char, end_char) and its vector.
-- On PGlite the dropped column's bytes stay in existing rows until they are rewritten (a re-index, VACUUM FULL).
ALTER TABLE chunks DROP COLUMN text;
