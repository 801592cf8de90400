/**
 * HTML → text with htmlparser2 (forgiving, streaming, no DOM built). Scripts, styles and other non-content
 * elements are skipped; block elements become line breaks; the title comes from <title>, else the first <h1>.
 * Also used for Markdown (rendered to HTML), EPUB chapters and HTML e-mail bodies.
 */
import type { DocumentMetadata } from '../types.js';
import { decodeBytes } from './encoding.js';
import { normalizeText, TextCollector, type TextLimits } from './normalize.js';
import type { ExtractInput, ExtractResult } from './types.js';
import { parseMarkup } from './xml.js';

/** Elements whose content is never text a reader sees. */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'math', 'object', 'embed', 'iframe', 'canvas', 'head']);
/** Elements that start a new line. */
const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'br', 'caption', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset',
  'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol',
  'p', 'pre', 'section', 'summary', 'table', 'tbody', 'thead', 'tfoot', 'tr', 'ul', 'option', 'legend',
]);
const CELLS = new Set(['td', 'th']);

export interface HtmlText {
  text: string;
  title?: string;
  metadata: DocumentMetadata;
  truncated: boolean;
}

/** Converts an HTML string to normalised text plus title and <meta> metadata. */
export function htmlToText(html: string, limits: number | TextLimits): HtmlText {
  const out = new TextCollector(limits);
  const metadata: DocumentMetadata = {};
  let skipDepth = 0;
  let inTitle = false;
  let title = '';
  let titleDone = false;
  let h1Depth = 0;
  let h1 = '';
  let h1Done = false;

  parseMarkup(
    html,
    {
      onopentag(name, attrs) {
        if (name === 'title' && !titleDone) {
          inTitle = true;
          return;
        }
        if (name === 'html' && attrs.lang) metadata.language = attrs.lang;
        if (name === 'meta') readMeta(attrs, metadata);
        // <head> is skipped for its text, but <title> and <meta> inside it are read above.
        if (SKIPPED.has(name)) {
          skipDepth++;
          return;
        }
        if (name === 'h1' && !h1Done) h1Depth++;
        if (BLOCKS.has(name)) out.newline();
      },
      ontext(text) {
        if (inTitle) {
          title += text;
          return;
        }
        if (skipDepth > 0) return;
        if (h1Depth > 0) h1 += text;
        out.push(text);
      },
      onclosetag(name) {
        if (name === 'title' && inTitle) {
          inTitle = false;
          titleDone = title.trim() !== '';
          return;
        }
        if (SKIPPED.has(name)) {
          skipDepth = Math.max(0, skipDepth - 1);
          return;
        }
        if (name === 'h1' && h1Depth > 0) {
          h1Depth--;
          if (h1Depth === 0 && h1.trim() !== '') h1Done = true;
        }
        if (CELLS.has(name)) out.push('\t');
        else if (BLOCKS.has(name)) out.newline();
        if (name === 'p' || /^h[1-6]$/.test(name)) out.push('\n');
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
    () => out.full,
  );

  const chosenTitle = oneLine(title) || oneLine(h1) || (typeof metadata.title === 'string' ? metadata.title : '');
  const result: HtmlText = { text: normalizeText(out.toString()), metadata, truncated: out.truncated };
  if (chosenTitle) {
    result.title = chosenTitle;
    metadata.title = chosenTitle;
  } else {
    delete metadata.title;
  }
  return result;
}

function readMeta(attrs: Record<string, string>, metadata: DocumentMetadata): void {
  const name = (attrs.name ?? attrs.property ?? '').toLowerCase();
  const content = attrs.content?.trim();
  if (!content) return;
  if (name === 'author' || name === 'dc.creator') metadata.author ??= content;
  else if (name === 'description' || name === 'og:description') metadata.description ??= content;
  else if (name === 'keywords') metadata.keywords ??= content.split(/[,;]/).map((k) => k.trim()).filter(Boolean);
  else if (name === 'title' || name === 'og:title' || name === 'dc.title') metadata.title ??= content;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The charset an HTML document declares in its first bytes (meta charset or http-equiv Content-Type). */
export function declaredHtmlCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 4096)).toString('latin1');
  const match = /<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_:.-]+)/i.exec(head);
  return match?.[1];
}

export async function extractHtml(input: ExtractInput): Promise<ExtractResult> {
  const decoded = decodeBytes(input.bytes, declaredHtmlCharset(input.bytes));
  const html = htmlToText(decoded.text, input);
  return {
    ok: true,
    format: 'html',
    mime: 'text/html',
    text: html.text,
    metadata: { ...html.metadata, encoding: decoded.encoding },
    truncated: html.truncated,
  };
}
