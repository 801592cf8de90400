/**
 * The store's list of the files under a folder, read a page a call (FilesRepository.knownUnderPage). Light on
 * purpose: the watcher and the indexing run call it on the main thread, which on PGlite loads no repository code.
 */
import { forEachPage } from '../../lib/pages.js';
import type { FilesRepository } from './files.repository.js';
import type { KnownCursor, KnownFile, KnownUnderPage } from './files.types.js';

/**
 * Every file under `directory` (FilesRepository.knownUnderPage), a page a store call: the store's call gate lets a
 * search in between calls, not between the statements of one, and the whole list read in one call held PGlite's
 * thread 0.7–0.9 s at 100,000 files (1.65 s cold, at a restart's reconcile), a search waiting all that time.
 */
export async function readKnownUnder(files: Pick<FilesRepository, 'knownUnderPage'>, directory: string): Promise<KnownFile[]> {
  const known: KnownFile[] = [];
  await forEachPage<KnownCursor, KnownUnderPage>({ fileId: 0 }, (after) => files.knownUnderPage(directory, after), (page) => {
    for (const file of page.known) known.push(file);
  });
  return known;
}
