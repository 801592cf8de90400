/** Cutting a sequence of words into overlapping windows by token count; shared by both embedders. */

/** Anything with a token count: a WordPiece word (its pieces) or a static-embedder word (0 or more ids). */
export interface CountedWord {
  ids: readonly number[];
}

/**
 * Word windows [first, last] (inclusive) whose token counts stay within budget; consecutive windows share
 * words worth at least `overlap` tokens. Windows only break between words, so re-tokenising a window's text
 * gives exactly its tokens. A single word longer than the budget gets a window of its own (encode truncates).
 */
export function windows(words: readonly CountedWord[], budget: number, overlap: number): [number, number][] {
  const out: [number, number][] = [];
  if (words.length === 0) return out;
  let first = 0;
  for (;;) {
    let last = first;
    let used = (words[first] as CountedWord).ids.length;
    while (last + 1 < words.length && used + (words[last + 1] as CountedWord).ids.length <= budget) {
      last++;
      used += (words[last] as CountedWord).ids.length;
    }
    out.push([first, last]);
    if (last === words.length - 1) return out;
    let next = last + 1;
    let shared = 0;
    while (next - 1 > first && shared < overlap) {
      next--;
      shared += (words[next] as CountedWord).ids.length;
    }
    first = next;
  }
}
