-- Lighter writes: what a file's write paid for and nothing used.
--
-- A chunk's text was stored beside its vector, yet nothing ever read it: snippets and previews come from
-- files.content, re-embedding reads files.content and cuts the chunks again. It doubled the text on disk (chunks
-- are short, so PostgreSQL stored them uncompressed: 14 MB of 140 MB for 1,059 Debian documents) and cost every
-- write. A chunk is its place in the file's text (start_char, end_char) and its vector. On PGlite the dropped
-- column's bytes stay in existing rows until they are rewritten (a re-index, VACUUM FULL).
ALTER TABLE chunks DROP COLUMN text;

-- keyword_tail's foreign key to keyword_docs checked every posting row on insert (a lookup per row, ~800 per
-- Debian document: 2.4 of the keyword index's 13.8 CPU ms per file on PGlite) only to cascade a document's
-- deletion. A row trigger on keyword_docs does that cascade once per document.
ALTER TABLE keyword_tail DROP CONSTRAINT keyword_tail_doc_fkey;
CREATE FUNCTION filesift_keyword_tail_forget() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM keyword_tail WHERE doc = OLD.doc;
  RETURN NULL;
END
$$;
CREATE TRIGGER keyword_docs_tail_forget AFTER DELETE ON keyword_docs
  FOR EACH ROW EXECUTE FUNCTION filesift_keyword_tail_forget();
