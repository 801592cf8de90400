/**
 * Plain ZIP archives. We do not extract members' contents (that would make one file index as many, and
 * invites zip bombs), but the entry names are listed as the text: a search for a file name finds the archive
 * that contains it, which is the main reason anyone searches an archive. An archive whose entries are all
 * encrypted is reported as encrypted, as the issue asks, with the listing left out.
 */
import type { ExtractResult } from './types.js';
import { failure } from './types.js';
import type { ZipArchive } from './zip.js';

export function listZip(zip: ZipArchive): ExtractResult {
  const files = zip.entries.filter((e) => !e.directory);
  const encrypted = files.filter((e) => e.encrypted);
  if (files.length > 0 && encrypted.length === files.length) {
    return failure('encrypted', `ZIP archive is encrypted (password required for all ${files.length} entries)`);
  }
  const metadata = { entries: files.length, ...(encrypted.length > 0 ? { encryptedEntries: encrypted.length } : {}) };
  const names = zip.entries.map((e) => e.name).join('\n');
  return {
    ok: true,
    format: 'zip',
    mime: 'application/zip',
    text: names,
    metadata,
    note:
      files.length === 0
        ? 'empty archive'
        : `archive: entry names listed, contents not extracted${encrypted.length > 0 ? ` (${encrypted.length} of ${files.length} entries encrypted)` : ''}`,
  };
}
