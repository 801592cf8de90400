/**
 * Markdown via marked (CommonMark + GFM): rendered to HTML and read by the HTML extractor, so emphasis,
 * links and tables become plain words and raw HTML blocks (scripts included) get the same treatment as in an
 * HTML file. The title is the first level-1 heading, else the first heading of any level.
 */
import { marked, type Token, type Tokens } from 'marked';
import { decodeBytes } from './encoding.js';
import { htmlToText } from './html.js';
import type { ExtractInput, ExtractResult } from './types.js';

export async function extractMarkdown(input: ExtractInput): Promise<ExtractResult> {
  const decoded = decodeBytes(input.bytes);
  // Front matter (--- yaml ---) is metadata, not prose; keep it out of the Markdown parser.
  const source = decoded.text.replace(/^\uFEFF?---\r?\n[\s\S]*?\r?\n---\r?\n/, '');
  const tokens = marked.lexer(source, { gfm: true });
  const html = marked.parser(tokens, { gfm: true });
  const converted = htmlToText(html, input.maxTextChars);
  const title = firstHeading(tokens);
  return {
    ok: true,
    format: 'markdown',
    mime: 'text/markdown',
    text: converted.text,
    metadata: { ...(title ? { title } : {}), encoding: decoded.encoding },
    truncated: converted.truncated,
  };
}

function firstHeading(tokens: Token[]): string | undefined {
  const headings = tokens.filter((t): t is Tokens.Heading => t.type === 'heading');
  const chosen = headings.find((h) => h.depth === 1) ?? headings[0];
  if (!chosen) return undefined;
  return htmlToText(marked.parseInline(chosen.text, { async: false }), 1000).text.replace(/\s+/g, ' ').trim() || undefined;
}
