/**
 * JSON: the values (with their keys, "key: value" per line) are the searchable text; braces and quotes are
 * not. Accepts a single document, JSON Lines and concatenated documents (as in log dumps). Text that is not
 * JSON at all is still indexed as plain text, with a note, rather than failed: the file is readable.
 */
import { decodeBytes } from './encoding.js';
import { normalizeText, TextCollector } from './normalize.js';
import type { ExtractInput, ExtractResult } from './types.js';

export async function extractJson(input: ExtractInput): Promise<ExtractResult> {
  const decoded = decodeBytes(input.bytes);
  const values = parseJsonValues(decoded.text);
  const metadata = { encoding: decoded.encoding };
  if (values === undefined) {
    return {
      ok: true,
      format: 'json',
      mime: 'application/json',
      text: normalizeText(decoded.text),
      metadata,
      note: 'not valid JSON; indexed as plain text',
    };
  }
  const out = new TextCollector(input);
  for (const value of values) {
    if (out.full) break;
    flatten(value, out);
    out.newline();
  }
  return { ok: true, format: 'json', mime: 'application/json', text: normalizeText(out.toString()), metadata, truncated: out.truncated };
}

/** One JSON document, or several written one after another; undefined when the text is not JSON. */
export function parseJsonValues(text: string): unknown[] | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  try {
    return [JSON.parse(trimmed)];
  } catch {
    // fall through: maybe several documents
  }
  const values: unknown[] = [];
  for (const piece of splitTopLevel(trimmed)) {
    try {
      values.push(JSON.parse(piece));
    } catch {
      return undefined;
    }
  }
  return values.length > 0 ? values : undefined;
}

/** Splits concatenated JSON documents at the points where bracket depth returns to zero (or at newlines). */
function splitTopLevel(text: string): string[] {
  const pieces: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) {
        pieces.push(text.slice(start, i + 1));
        start = i + 1;
      }
    } else if (ch === '\n' && depth === 0) {
      if (text.slice(start, i).trim() !== '') pieces.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (text.slice(start).trim() !== '') pieces.push(text.slice(start));
  return pieces.filter((p) => p.trim() !== '');
}

/** Writes scalar leaves as "key: value" lines, iteratively (deep nesting must not overflow the stack). */
function flatten(root: unknown, out: TextCollector): void {
  const stack: Array<{ key: string; value: unknown }> = [{ key: '', value: root }];
  while (stack.length > 0 && !out.full) {
    const { key, value } = stack.pop() as { key: string; value: unknown };
    if (value === null || value === undefined) continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ key, value: value[i] });
    } else if (typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, v] = entries[i] as [string, unknown];
        stack.push({ key: k, value: v });
      }
    } else {
      out.push(key ? `${key}: ${String(value)}\n` : `${String(value)}\n`);
    }
  }
  if (stack.length > 0) out.truncated = true;
}
