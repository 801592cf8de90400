/** Shared helpers of the analyze tests: documents as the parse stage would hand them over. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ParsedDocument } from '../../../src/pipeline/types.js';
import { sharedPath } from '../../helpers/shared.js';

export function docFrom(filename: string, text: string, overrides: Partial<ParsedDocument> = {}): ParsedDocument {
  const extension = filename.includes('.') ? (filename.split('.').pop() ?? '').toLowerCase() : '';
  const now = new Date(0).toISOString();
  return {
    path: path.join('/data', filename),
    filename,
    extension,
    size: Buffer.byteLength(text),
    created: now,
    modified: now,
    accessed: now,
    format: extension === 'md' ? 'markdown' : 'text',
    mime: 'text/plain',
    text,
    metadata: {},
    contentHash: '0'.repeat(64),
    textTruncated: false,
    ...overrides,
  };
}

/** A SciFact abstract file ("title\n\nabstract") as a parsed document, with its title line and body. */
export function scifact(id: string): { doc: ParsedDocument; titleLine: string; body: string } {
  const text = readFileSync(sharedPath('datasets', 'scifact', 'files', `${id}.txt`), 'utf8');
  const [titleLine = '', ...rest] = text.split('\n\n');
  return { doc: docFrom(`${id}.txt`, text), titleLine: titleLine.trim(), body: rest.join('\n\n') };
}

/** Whitespace-insensitive form, for checking that a summary sentence is text from the document. */
export function flat(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
