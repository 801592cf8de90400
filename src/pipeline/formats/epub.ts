/**
 * EPUB 2/3: META-INF/container.xml points at the OPF package document, whose metadata gives title/author
 * and whose spine gives the reading order of the XHTML chapters, each read by the HTML extractor. Chapters
 * listed in META-INF/encryption.xml with a real cipher (DRM) are unreadable; font obfuscation is not DRM.
 */
import type { DocumentMetadata } from '../types.js';
import { htmlToText } from './html.js';
import { normalizeText, TextCollector, type TextLimits } from './normalize.js';
import { resolvePartName } from './opc.js';
import { failure, type ExtractResult } from './types.js';
import { decodeXml, elementTexts, parseXml } from './xml.js';
import type { ZipArchive } from './zip.js';

/** Algorithms used only to obfuscate embedded fonts (IDPF and Adobe), which leave the text readable. */
const FONT_OBFUSCATION = new Set(['http://www.idpf.org/2008/embedding', 'http://ns.adobe.com/pdf/enc#RC']);

async function readXml(zip: ZipArchive, name: string): Promise<string | undefined> {
  return zip.has(name) ? decodeXml(await zip.read(name)) : undefined;
}

export async function extractEpub(zip: ZipArchive, limits: TextLimits): Promise<ExtractResult> {
  const container = await readXml(zip, 'META-INF/container.xml');
  let opfPath: string | undefined;
  if (container !== undefined) {
    parseXml(container, {
      onopentag(name, attrs) {
        if (name === 'rootfile' && !opfPath && attrs['full-path']) opfPath = attrs['full-path'];
      },
    });
  }
  opfPath ??= zip.entries.find((e) => e.name.toLowerCase().endsWith('.opf'))?.name;
  const opf = opfPath ? await readXml(zip, opfPath) : undefined;
  if (!opfPath || opf === undefined) return failure('corrupt', 'EPUB has no package document (.opf)');

  const folder = opfPath.includes('/') ? opfPath.slice(0, opfPath.lastIndexOf('/')) : '';
  const manifest = new Map<string, { href: string; type: string }>();
  const spine: string[] = [];
  parseXml(opf, {
    onopentag(name, attrs) {
      const local = name.replace(/^.*:/, '');
      if (local === 'item' && attrs.id && attrs.href) {
        manifest.set(attrs.id, { href: resolvePartName(folder, attrs.href.split('#')[0] ?? ''), type: attrs['media-type'] ?? '' });
      } else if (local === 'itemref' && attrs.idref && attrs.linear !== 'no') spine.push(attrs.idref);
    },
  });
  // Each chapter once, in spine order: a spine naming one chapter a million times (a "spine bomb") is read once.
  const chapters = [...new Set(spine.map((id) => manifest.get(id)).filter((item) => item && /html|xml/.test(item.type)).map((item) => item?.href ?? ''))];

  const encrypted = await drmProtected(zip);
  const locked = chapters.filter((c) => encrypted.has(c));
  if (chapters.length > 0 && locked.length === chapters.length) {
    return failure('encrypted', 'EPUB is DRM-protected (its chapters are encrypted)');
  }

  const out = new TextCollector(limits);
  for (const chapter of chapters) {
    if (out.full) break;
    if (encrypted.has(chapter) || !zip.has(chapter)) continue;
    const html = decodeXml(await zip.read(chapter));
    out.push(htmlToText(html, limits).text);
    out.push('\n\n');
  }
  return {
    ok: true,
    format: 'epub',
    mime: 'application/epub+zip',
    text: normalizeText(out.toString()),
    metadata: { ...opfMetadata(opf), chapters: chapters.length },
    truncated: out.truncated,
    ...(locked.length > 0 ? { note: `${locked.length} of ${chapters.length} chapters are encrypted` } : {}),
  };
}

/** Resources encrypted with something other than font obfuscation. */
async function drmProtected(zip: ZipArchive): Promise<Set<string>> {
  const xml = await readXml(zip, 'META-INF/encryption.xml');
  const locked = new Set<string>();
  if (xml === undefined) return locked;
  let algorithm = '';
  parseXml(xml, {
    onopentag(name, attrs) {
      const local = name.replace(/^.*:/, '');
      if (local === 'EncryptedData') algorithm = '';
      else if (local === 'EncryptionMethod') algorithm = attrs.Algorithm ?? '';
      else if (local === 'CipherReference' && attrs.URI && !FONT_OBFUSCATION.has(algorithm)) {
        locked.add(resolvePartName('', attrs.URI));
      }
    },
  });
  return locked;
}

function opfMetadata(opf: string): DocumentMetadata {
  const found = elementTexts(opf, new Set(['dc:title', 'dc:creator', 'dc:language', 'dc:subject', 'dc:date', 'dc:description']));
  const metadata: DocumentMetadata = {};
  const title = found.get('dc:title')?.[0];
  if (title) metadata.title = title;
  const creators = found.get('dc:creator');
  if (creators) metadata.author = creators.join(', ');
  const language = found.get('dc:language')?.[0];
  if (language) metadata.language = language;
  const subjects = found.get('dc:subject');
  if (subjects) metadata.keywords = subjects;
  const date = found.get('dc:date')?.[0];
  if (date) metadata.created = date;
  return metadata;
}
