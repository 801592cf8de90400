/**
 * Cuts over-wide page-tree nodes out of a PDF before pdf.js sees it. Hand-written because pdf.js offers no bound:
 * opening a document it fetches every entry of the root /Pages node at once and walks to the last page, and every
 * later getPage walks the node again, so one node listing 500,000 pages cost ~1.5 GB and minutes before the first
 * page's text (issue 16, bench:torture --hostile). A node's /Kids array wider than the limit keeps its first
 * entries; the rest is overwritten with spaces, so every byte offset (and the cross-reference table) stays valid
 * and pdf.js counts the pages of the cut tree itself. Only nodes written in the clear are seen, not ones inside
 * compressed object streams.
 */

const SPACE = 0x20;
const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
const R = 0x52;
const KIDS = Buffer.from('/Kids', 'latin1');

function isWhite(byte: number | undefined): boolean {
  return byte === SPACE || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
}

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x30 && byte <= 0x39;
}

/**
 * Overwrites, in place, the entries past `maxKids` of every /Kids array made only of references (`12 0 R`).
 * Returns the entry count of the widest array cut, or 0 when none was wider than the limit.
 */
export function cutWidePageTreeNodes(bytes: Uint8Array, maxKids: number): number {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let widest = 0;
  for (let at = buf.indexOf(KIDS); at >= 0; at = buf.indexOf(KIDS, at)) {
    let i = (at += KIDS.length);
    while (isWhite(buf[i])) i++;
    if (buf[i] !== OPEN) continue;
    // Count the references: only digits, white space and R until the closing bracket, else it is no plain array.
    let entries = 0;
    let cutFrom = -1;
    let j = i + 1;
    for (; j < buf.length && buf[j] !== CLOSE; j++) {
      const byte = buf[j];
      if (byte === R) {
        entries++;
        if (entries === maxKids) cutFrom = j + 1;
      } else if (!isDigit(byte) && !isWhite(byte)) break;
    }
    if (buf[j] !== CLOSE || entries <= maxKids) continue;
    buf.fill(SPACE, cutFrom, j);
    widest = Math.max(widest, entries);
    at = j;
  }
  return widest;
}
