/**
 * OpenDocument (ODT, ODS, ODP, ODG and their templates): content.xml for the body, styles.xml for page
 * headers and footers, meta.xml for title/author, META-INF/manifest.xml to recognise password protection
 * (encrypted parts are listed there with <manifest:encryption-data>; their bytes are ciphertext).
 */
import type { DocumentMetadata } from '../types.js';
import { normalizeText, TextCollector, type TextLimits } from './normalize.js';
import { failure, type ExtractResult } from './types.js';
import { decodeXml, elementTexts, parseXml } from './xml.js';
import type { ZipArchive } from './zip.js';

const SHORT_NAMES: Record<string, string> = {
  text: 'odt',
  spreadsheet: 'ods',
  presentation: 'odp',
  graphics: 'odg',
  formula: 'odf',
  chart: 'odc',
  'text-master': 'odm',
};

/** The short format name for an OpenDocument mimetype ('application/vnd.oasis.opendocument.text' → 'odt'). */
export function odfFormat(mime: string): string {
  const kind = mime.replace('application/vnd.oasis.opendocument.', '').replace(/-template$/, '');
  return SHORT_NAMES[kind] ?? 'opendocument';
}

/** Elements whose text is not document content (deleted changes, embedded binaries). */
const SKIPPED = new Set(['text:tracked-changes', 'office:binary-data', 'text:sequence-decls', 'office:forms']);
/** Elements of styles.xml whose text is content: page headers and footers. */
const HEADER_FOOTER = new Set(['style:header', 'style:footer', 'style:header-left', 'style:footer-left', 'style:header-first', 'style:footer-first']);

function odfText(xml: string, out: TextCollector, onlyInside?: ReadonlySet<string>): void {
  let skipDepth = 0;
  let insideDepth = onlyInside ? 0 : 1;
  const active = () => skipDepth === 0 && insideDepth > 0;
  parseXml(
    xml,
    {
      onopentag(name, attrs) {
        if (onlyInside?.has(name)) insideDepth++;
        if (SKIPPED.has(name)) skipDepth++;
        if (!active()) return;
        if (name === 'text:s') out.push(' '.repeat(Math.min(Number(attrs['text:c'] ?? 1) || 1, 8)));
        else if (name === 'text:tab') out.push('\t');
        else if (name === 'text:line-break') out.push('\n');
        else if (name === 'table:table' && attrs['table:name']) out.push(`\n${attrs['table:name']}\n`);
      },
      ontext(text) {
        if (active()) out.push(text);
      },
      onclosetag(name) {
        if (active()) {
          if (name === 'text:p' || name === 'text:h') out.push('\n');
          else if (name === 'table:table-cell') out.push('\t');
          else if (name === 'table:table-row') out.push('\n');
          else if (name === 'draw:page' || name === 'table:table') out.push('\n\n');
        }
        if (SKIPPED.has(name)) skipDepth--;
        if (onlyInside?.has(name)) insideDepth--;
      },
    },
    () => out.full,
  );
}

/** Parts the manifest marks as encrypted. */
function encryptedParts(manifest: string): string[] {
  const parts: string[] = [];
  let current: string | undefined;
  parseXml(manifest, {
    onopentag(name, attrs) {
      if (name === 'manifest:file-entry') current = attrs['manifest:full-path'];
      else if (name === 'manifest:encryption-data' && current) parts.push(current);
    },
    onclosetag(name) {
      if (name === 'manifest:file-entry') current = undefined;
    },
  });
  return parts;
}

async function readText(zip: ZipArchive, name: string): Promise<string | undefined> {
  return zip.has(name) ? decodeXml(await zip.read(name)) : undefined;
}

export async function extractOpenDocument(zip: ZipArchive, mime: string, limits: TextLimits): Promise<ExtractResult> {
  const format = odfFormat(mime);
  const label = format.toUpperCase();
  const manifest = await readText(zip, 'META-INF/manifest.xml');
  if (manifest !== undefined && encryptedParts(manifest).includes('content.xml')) {
    return failure('encrypted', `${label} is encrypted (password required)`);
  }
  const content = await readText(zip, 'content.xml');
  if (content === undefined) return failure('corrupt', `${label} has no content.xml part`);

  const out = new TextCollector(limits);
  odfText(content, out);
  const styles = await readText(zip, 'styles.xml');
  if (styles !== undefined && !out.full) {
    out.push('\n\n');
    odfText(styles, out, HEADER_FOOTER);
  }
  const meta = await readText(zip, 'meta.xml');
  return {
    ok: true,
    format,
    mime,
    text: normalizeText(out.toString()),
    metadata: meta === undefined ? {} : odfMetadata(meta),
    truncated: out.truncated,
  };
}

function odfMetadata(xml: string): DocumentMetadata {
  const found = elementTexts(xml, new Set(['dc:title', 'dc:creator', 'meta:initial-creator', 'dc:subject', 'meta:keyword', 'dc:language', 'meta:creation-date', 'dc:description']));
  const first = (name: string) => found.get(name)?.[0];
  const metadata: DocumentMetadata = {};
  const title = first('dc:title');
  if (title) metadata.title = title;
  const author = first('dc:creator') ?? first('meta:initial-creator');
  if (author) metadata.author = author;
  const subject = first('dc:subject');
  if (subject) metadata.subject = subject;
  const keywords = found.get('meta:keyword');
  if (keywords) metadata.keywords = keywords;
  const language = first('dc:language');
  if (language) metadata.language = language;
  const created = first('meta:creation-date');
  if (created) metadata.created = created;
  const description = first('dc:description');
  if (description) metadata.description = description;
  parseXml(xml, {
    onopentag(name, attrs) {
      const pages = Number(attrs['meta:page-count']);
      if (name === 'meta:document-statistic' && Number.isFinite(pages) && pages > 0) metadata.pages = pages;
    },
  });
  return metadata;
}
