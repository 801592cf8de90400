/**
 * A pure function of a string with its answers remembered for the thread: for words, which repeat across files
 * and results. When `limit` answers are held they are all forgotten at once: cheaper than LRU bookkeeping, and the
 * frequent words come straight back.
 */
export function memoizeBounded<V>(fn: (key: string) => V, limit: number): (key: string) => V {
  const answers = new Map<string, V>();
  return (key) => {
    let value = answers.get(key);
    if (value === undefined) {
      if (answers.size >= limit) answers.clear();
      value = fn(key);
      answers.set(key, value);
    }
    return value;
  };
}
