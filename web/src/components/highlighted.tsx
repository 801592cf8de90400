/** Text with [start, end) ranges marked (search snippets and previews). */
export function Highlighted({ text, ranges }: { text: string; ranges: readonly (readonly number[])[] }) {
  const parts = [];
  let at = 0;
  for (const [start = 0, end = 0] of [...ranges].sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0))) {
    if (start < at || end <= start) continue;
    if (start > at) parts.push(text.slice(at, start));
    parts.push(<mark key={start}>{text.slice(start, end)}</mark>);
    at = end;
  }
  if (at < text.length) parts.push(text.slice(at));
  return <>{parts}</>;
}
