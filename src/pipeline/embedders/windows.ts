/** Cutting a sequence of words into overlapping windows by token count; shared by both embedders. */

/**
 * Word windows [first, last] (inclusive) over words with the given token counts: each window's total stays
 * within budget, and consecutive windows share words worth at least `overlap` tokens. Windows only break
 * between words, so re-tokenising a window's text gives exactly its tokens. A single word longer than the
 * budget gets a window of its own (the embedder truncates it).
 */
export function windows(counts: ArrayLike<number>, budget: number, overlap: number): [number, number][] {
  const out: [number, number][] = [];
  if (counts.length === 0) return out;
  const count = (i: number): number => counts[i] as number;
  let first = 0;
  for (;;) {
    let last = first;
    let used = count(first);
    while (last + 1 < counts.length && used + count(last + 1) <= budget) {
      last++;
      used += count(last);
    }
    out.push([first, last]);
    if (last === counts.length - 1) return out;
    let next = last + 1;
    let shared = 0;
    while (next - 1 > first && shared < overlap) {
      next--;
      shared += count(next);
    }
    first = next;
  }
}
