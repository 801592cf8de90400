/**
 * A list read a page a call: each page names the cursor of the next (null after the last). The store pages its
 * long lists so that one call never holds the embedded engine's thread for long (a search goes between pages).
 */
export interface Page<C> {
  next: C | null;
}

/** Reads every page from `first` on, handing each to `each` as it comes. */
export async function forEachPage<C, P extends Page<C>>(first: NoInfer<C>, read: (cursor: C) => Promise<P>, each: (page: P) => void): Promise<void> {
  for (let cursor: C | null = first; cursor !== null; ) {
    const page: P = await read(cursor);
    each(page);
    cursor = page.next;
  }
}
