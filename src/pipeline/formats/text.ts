/**
 * Plain text, source code and delimited text (CSV/TSV): decode (see encoding.ts) and normalise. CSV is kept
 * as its text; tokenisers split on the delimiters, so cell values are searchable without a CSV parser.
 */
import { decodeBytes } from './encoding.js';
import { normalizeText } from './normalize.js';
import type { ExtractInput, ExtractResult } from './types.js';

export function extractPlainText(format: 'text' | 'csv', mime: string) {
  return async (input: ExtractInput): Promise<ExtractResult> => {
    // Twice the budget is more than normalising can shrink to it: cut before normalising, not after.
    const budget = input.maxTextChars * 2;
    const decoded = decodeBytes(input.bytes, undefined, { maxChars: budget + 1 });
    const truncated = decoded.text.length > budget;
    return {
      ok: true,
      format,
      mime,
      text: normalizeText(truncated ? decoded.text.slice(0, budget) : decoded.text),
      metadata: { encoding: decoded.encoding },
      truncated,
    };
  };
}
