/**
 * XML helpers shared by the XML-based formats (OOXML, OpenDocument, EPUB, plain .xml) and the extractor for
 * generic XML files. htmlparser2 in XML mode: forgiving (a damaged part still yields its readable text),
 * streaming, and entities are decoded. Element names keep their prefixes ('w:t', 'text:p').
 */
import { Parser, type Handler, type ParserOptions } from 'htmlparser2';
import { decodeBytes } from './encoding.js';
import { normalizeText, TextCollector } from './normalize.js';
import type { ExtractInput, ExtractResult } from './types.js';

export type XmlHandlers = Partial<Pick<Handler, 'onopentag' | 'onclosetag' | 'ontext'>>;

const CHUNK_CHARS = 1 << 20;
/**
 * Elements open at once beyond which the parser is started afresh. htmlparser2 keeps the open elements in an
 * array it unshifts, so each level costs a copy of all the levels above it: 2 million nested <div>s took
 * minutes. Text does not need the structure of such depths.
 */
export const MAX_NESTING = 256;

/**
 * Runs markup through htmlparser2 with the given callbacks, in 1 MB slices so that `stop` (e.g. "the text
 * budget is used up", "the time is up") can end the walk of a huge document early. When elements nest deeper
 * than MAX_NESTING, parsing goes on from the next tag with a fresh parser (the deep elements are left open,
 * their text still read), which keeps the work linear in the input.
 */
export function parseMarkup(input: string, handlers: Partial<Handler>, options: ParserOptions, stop?: () => boolean): void {
  let depth = 0;
  let tooDeep = false;
  let parser: Parser;
  const counting: Partial<Handler> = {
    ...handlers,
    onopentag(name, attrs, implied) {
      handlers.onopentag?.(name, attrs, implied);
      if (++depth > MAX_NESTING && !tooDeep) {
        tooDeep = true;
        parser.pause(); // no more events from this parser; it is replaced after the tag just read
      }
    },
    onclosetag(name, implied) {
      depth = Math.max(0, depth - 1);
      handlers.onclosetag?.(name, implied);
    },
  };
  let base = 0; // where the current parser's input starts in `input`
  parser = new Parser(counting, options);
  let start = 0;
  while (start < input.length) {
    if (stop?.()) break;
    const end = Math.min(input.length, start + CHUNK_CHARS);
    parser.write(input.slice(start, end));
    if (tooDeep) {
      start = base + parser.endIndex + 1;
      base = start;
      depth = 0;
      tooDeep = false;
      parser = new Parser(counting, options);
      continue;
    }
    start = end;
  }
  parser.end();
}

/**
 * Runs an XML string through htmlparser2 in XML mode with the given callbacks (see parseMarkup: in slices,
 * stoppable, nesting bounded).
 */
export function parseXml(xml: string, handlers: XmlHandlers, stop?: () => boolean): void {
  parseMarkup(xml, handlers, { xmlMode: true, decodeEntities: true }, stop);
}

/** The encoding named in an XML declaration (<?xml version="1.0" encoding="..."?>), if any. */
export function declaredXmlEncoding(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 512)).toString('latin1');
  return /^\s*<\?xml[^>]*\sencoding\s*=\s*["']([A-Za-z0-9_.:-]+)["']/.exec(head)?.[1];
}

/** Decodes an XML document's bytes as its BOM or declaration says (UTF-8 by default). */
export function decodeXml(bytes: Uint8Array): string {
  return decodeBytes(bytes, declaredXmlEncoding(bytes) ?? 'utf-8').text;
}

/** Collects the text of every element whose name is in `names`, in document order. */
export function elementTexts(xml: string, names: ReadonlySet<string>): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const open: string[] = [];
  let buffer = '';
  parseXml(xml, {
    onopentag(name) {
      if (names.has(name)) {
        open.push(name);
        buffer = '';
      }
    },
    ontext(text) {
      if (open.length > 0) buffer += text;
    },
    onclosetag(name) {
      if (open.length > 0 && open[open.length - 1] === name) {
        open.pop();
        const value = buffer.replace(/\s+/g, ' ').trim();
        if (value) found.set(name, [...(found.get(name) ?? []), value]);
        buffer = '';
      }
    },
  });
  return found;
}

/** Generic XML: all character data (CDATA included), one element per line; comments are not content. */
export async function extractXml(input: ExtractInput): Promise<ExtractResult> {
  const xml = decodeXml(input.bytes);
  const out = new TextCollector(input);
  // The first element called 'title' (any namespace: DocBook, RSS, Atom, dc:title) names the document.
  let title: string | undefined;
  let titleElement: string | undefined;
  let titleBuffer = '';
  parseXml(xml, {
    onopentag(name) {
      if (title === undefined && titleElement === undefined && /(^|:)title$/i.test(name)) titleElement = name;
      out.newline();
    },
    ontext(text) {
      if (titleElement !== undefined) titleBuffer += text;
      out.push(text);
    },
    onclosetag(name) {
      if (name === titleElement) {
        title = titleBuffer.replace(/\s+/g, ' ').trim() || undefined;
        titleElement = undefined;
      }
      out.newline();
    },
  });
  return {
    ok: true,
    format: 'xml',
    mime: 'application/xml',
    text: normalizeText(out.toString()),
    metadata: title ? { title } : {},
    truncated: out.truncated,
  };
}
