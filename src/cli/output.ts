/** What the commands print: aligned columns, local dates, and bold only on a terminal that wants colours. */
import type { CliIo } from './program.js';

/** Columns padded to their widest cell; the last column is never padded (paths stay whole and cut-able). */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}

const pad = (n: number) => String(n).padStart(2, '0');

/** "2026-11-22 14:06" in local time; '-' when unknown. */
export function localDateTime(iso: string | null): string {
  if (!iso) return '-';
  const d = new Date(/[zZ]|[+-]\d\d:\d\d$/.test(iso) ? iso : `${iso}Z`);
  if (Number.isNaN(d.getTime())) return '-';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** ANSI bold for a terminal (not when NO_COLOR is set, nor into a pipe). */
export function styler(io: CliIo): { bold: (s: string) => string; dim: (s: string) => string } {
  const on = io.stdout.isTTY === true && !io.env.NO_COLOR && io.env.TERM !== 'dumb';
  return {
    bold: (s) => (on ? `\x1b[1m${s}\x1b[22m` : s),
    dim: (s) => (on ? `\x1b[2m${s}\x1b[22m` : s),
  };
}

export function writeJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
