/**
 * Delimited tables (CSV, TSV, semicolon- or pipe-separated text, and spreadsheets a parser flattened that way).
 * Sentences mean nothing there, so the summary describes the table's shape and columns instead.
 */
import type { Block } from './blocks.js';
import { truncate } from './summary.js';

const DELIMITERS = [',', '\t', ';', '|'] as const;
const SAMPLE_LINES = 50;

export interface TableShape {
  delimiter: string;
  /** Column names when the first row is a header (mostly non-numeric cells), else []. */
  header: string[];
  columns: number;
  /** Data rows (not counting the header). */
  rows: number;
  /** Every row's cells, header first, for keywords. */
  cells: string[][];
}

/**
 * Detects a delimited table: at least 3 non-empty lines, and in a sample of the first 50 the same delimiter
 * splits at least 90% of them into the same number (≥ 2) of cells. `force` accepts 2-line tables (a .csv file
 * with a header and one row) and a lower bar, for files whose extension already says "table".
 */
export function detectTable(text: string, force = false): TableShape | undefined {
  const lines = text.replace(/\r\n?/g, '\n').split('\n').filter((line) => line.trim() !== '');
  if (lines.length < (force ? 1 : 3)) return undefined;
  const sample = lines.slice(0, SAMPLE_LINES);
  let best: { delimiter: string; columns: number; share: number } | undefined;
  for (const delimiter of DELIMITERS) {
    const counts = new Map<number, number>();
    for (const line of sample) {
      const n = splitRow(line, delimiter).length;
      counts.set(n, (counts.get(n) ?? 0) + 1);
    }
    const [columns, hits] = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0] ?? [0, 0];
    const share = hits / sample.length;
    if (columns >= 2 && (!best || share > best.share || (share === best.share && columns > best.columns))) {
      best = { delimiter, columns, share };
    }
  }
  if (!best || best.share < (force ? 0.5 : 0.9)) return undefined;
  const cells = lines.map((line) => splitRow(line, best.delimiter));
  const first = cells[0] ?? [];
  const isHeader = first.length > 0 && first.filter((cell) => /\p{L}/u.test(cell) && !isNumeric(cell)).length >= first.length / 2;
  return {
    delimiter: best.delimiter,
    header: isHeader ? first.filter((cell) => cell !== '') : [],
    columns: best.columns,
    rows: cells.length - (isHeader ? 1 : 0),
    cells,
  };
}

/** Splits one line on a delimiter, honouring double quotes ("a, b" is one cell; "" is a quote). */
export function splitRow(line: string, delimiter: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"' && cell.trim() === '') {
      quoted = true;
      cell = '';
    } else if (ch === delimiter) {
      cells.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  cells.push(cell.trim());
  if (delimiter === '|' && cells[0] === '' && cells[cells.length - 1] === '') return cells.slice(1, -1);
  return cells;
}

function isNumeric(cell: string): boolean {
  return /^[-+]?[\d.,]+%?$/.test(cell.trim());
}

/** "Table of 120 rows and 4 columns: id, name, price, quantity." bounded to maxChars. */
export function describeTable(shape: TableShape, maxChars: number): string {
  const rows = `${shape.rows} ${shape.rows === 1 ? 'row' : 'rows'}`;
  const columns = `${shape.columns} ${shape.columns === 1 ? 'column' : 'columns'}`;
  const lead = `Table of ${rows} and ${columns}`;
  const names = shape.header;
  // As many column names as fit, then "… (n more)".
  for (let shown = names.length; shown > 0; shown -= 1) {
    const rest = names.length - shown;
    const text = `${lead}: ${names.slice(0, shown).join(', ')}${rest > 0 ? `, … (${rest} more)` : ''}.`;
    if (text.length <= maxChars) return text;
  }
  return truncate(`${lead}.`, maxChars);
}

/** Table cells as blocks for keyword extraction: the header as a heading (it names what the table is about). */
export function tableBlocks(shape: TableShape): Block[] {
  const rows = shape.header.length > 0 ? shape.cells.slice(1) : shape.cells;
  const blocks: Block[] = [];
  if (shape.header.length > 0) blocks.push({ kind: 'heading', text: shape.header.join(' | '), level: 0 });
  for (const row of rows) blocks.push({ kind: 'table', text: row.join(' | ') });
  return blocks;
}
