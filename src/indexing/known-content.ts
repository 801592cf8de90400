/**
 * Which contents the index may already hold, so that a new file's duplicate lookup (files.findByHash) is skipped
 * when its content hash is certainly new: nearly every file of a first run. That lookup is a store call, and on the
 * embedded engine it waits behind every write queued on the store's one thread while the file's pipeline task
 * waits for its answer; on the Debian corpus it cost the store's thread 1.7 ms a file and found 3 duplicates in
 * 5,412 files.
 *
 * The set holds a 32-bit fingerprint of each indexed file's content hash (the store's list, read once at the
 * first lookup, then every hash this process writes): a hash whose fingerprint is absent was never indexed; one
 * that is present may have been, and the store is asked. Only this process's writes are added, so a second
 * service writing to the same PostgreSQL database may index a duplicate again instead of copying it: a cost,
 * never a wrong answer.
 */
import { FingerprintSet, fingerprint } from '../lib/fingerprint-set.js';
import { forEachPage } from '../lib/pages.js';
import type { ContentKeysPage } from '../store/repositories/files.types.js';

/** The characters of a content hash that are fingerprinted (a SHA-256 in hex: 64 bits of it). */
export const CONTENT_KEY_CHARS = 16;

export class KnownContent {
  readonly #set = new FingerprintSet();
  #loaded: Promise<void> | null = null;

  /**
   * `loadPage(after)` answers the first CONTENT_KEY_CHARS characters of the indexed files' content hashes, a page
   * from `after` (0 first): one store call a page, so searches go between them (files.contentKeys).
   */
  constructor(private readonly loadPage: (after: number) => Promise<ContentKeysPage>) {}

  /** False when no indexed file has this content; true when one may have (also while the store's list cannot be read). */
  async mayHold(contentHash: string): Promise<boolean> {
    this.#loaded ??= this.#load().catch((err: unknown) => {
      this.#loaded = null; // the next lookup tries again (from the first page: what was added stays, a cost only)
      throw err;
    });
    try {
      await this.#loaded;
    } catch {
      return true;
    }
    return this.#set.has(KnownContent.#key(contentHash));
  }

  async #load(): Promise<void> {
    await forEachPage<number, ContentKeysPage>(0, this.loadPage, (page) => {
      for (const key of page.keys) this.#set.add(fingerprint(key));
    });
  }

  /** A file with this content was written to the index. */
  add(contentHash: string): void {
    this.#set.add(KnownContent.#key(contentHash));
  }

  static #key(contentHash: string): number {
    return fingerprint(contentHash.slice(0, CONTENT_KEY_CHARS));
  }
}
