import type { ParsedDocument } from '../pipeline/types.js';
import type { IndexedFileWrite } from '../store/repositories/files.types.js';

/** What the indexer adds to a parsed document to store it: where it came from, its analysis and its vectors. */
export type IndexedWriteExtras = Pick<IndexedFileWrite, 'mtimeMs' | 'jobId' | 'analysis' | 'embeddingModel' | 'chunks'>;

/**
 * A parsed document as the store writes it: its facts, text and metadata as parsed, with the rest given. The
 * indexer's write, and the benches that replay it, build it here, so a field the parser adds reaches them all.
 */
export function indexedFileWrite(doc: ParsedDocument, extras: IndexedWriteExtras): IndexedFileWrite {
  return {
    facts: doc,
    contentHash: doc.contentHash,
    format: doc.format,
    mime: doc.mime,
    text: doc.text,
    textTruncated: doc.textTruncated,
    metadata: doc.metadata,
    note: doc.note ?? null,
    ...extras,
  };
}
