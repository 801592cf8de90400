/**
 * Office Open XML packaging (OPC) shared by DOCX, PPTX and XLSX: relationship parts, part-name resolution,
 * the main document part, and core properties (docProps/core.xml: title, author, ...).
 */
import type { DocumentMetadata } from '../types.js';
import { decodeXml, elementTexts, parseXml } from './xml.js';
import type { ZipArchive } from './zip.js';

export interface Relationship {
  id: string;
  type: string;
  /** Absolute part name inside the package, without a leading slash ('word/document.xml'). */
  target: string;
  external: boolean;
}

/** Reads a part as text, or undefined if the package does not have it. */
export async function readPart(zip: ZipArchive, name: string): Promise<string | undefined> {
  if (!zip.has(name)) return undefined;
  return decodeXml(await zip.read(name));
}

/** The relationships of `part` ('' for the package itself), from its _rels/<name>.rels part. */
export async function relationships(zip: ZipArchive, part: string): Promise<Relationship[]> {
  const slash = part.lastIndexOf('/');
  const folder = slash >= 0 ? part.slice(0, slash) : '';
  const relsName = part === '' ? '_rels/.rels' : `${folder ? `${folder}/` : ''}_rels/${part.slice(slash + 1)}.rels`;
  const xml = await readPart(zip, relsName);
  if (xml === undefined) return [];
  const rels: Relationship[] = [];
  parseXml(xml, {
    onopentag(name, attrs) {
      if (name !== 'Relationship' || !attrs.Id || !attrs.Target) return;
      const external = attrs.TargetMode === 'External';
      rels.push({
        id: attrs.Id,
        type: attrs.Type ?? '',
        target: external ? attrs.Target : resolvePartName(folder, attrs.Target),
        external,
      });
    },
  });
  return rels;
}

/** Resolves a relationship target against the source part's folder ('../media/x.png', '/xl/sheet.xml'). */
export function resolvePartName(folder: string, target: string): string {
  const segments = target.startsWith('/') ? [] : folder.split('/').filter(Boolean);
  for (const segment of safeDecodeUri(target).split('/')) {
    if (segment === '..') segments.pop();
    else if (segment !== '.' && segment !== '') segments.push(segment);
  }
  return segments.join('/');
}

function safeDecodeUri(value: string): string {
  try {
    return decodeURI(value);
  } catch {
    return value; // a malformed %-escape: use the name as written
  }
}

export function byType(rels: Relationship[], suffix: string): Relationship[] {
  return rels.filter((r) => !r.external && r.type.endsWith(suffix));
}

/** The package's main part (word/document.xml, ppt/presentation.xml, xl/workbook.xml) per _rels/.rels. */
export async function mainPart(zip: ZipArchive): Promise<string | undefined> {
  const rels = await relationships(zip, '');
  return byType(rels, '/officeDocument').find((r) => zip.has(r.target))?.target;
}

/** Core properties: title, author, subject, keywords, created, language. */
export async function coreProperties(zip: ZipArchive): Promise<DocumentMetadata> {
  const rels = await relationships(zip, '');
  const part = byType(rels, '/core-properties')[0]?.target ?? 'docProps/core.xml';
  const xml = await readPart(zip, part);
  const metadata: DocumentMetadata = {};
  if (xml === undefined) return metadata;
  const found = elementTexts(xml, new Set(['dc:title', 'dc:creator', 'dc:subject', 'cp:keywords', 'dcterms:created', 'dc:language', 'dc:description']));
  const first = (name: string) => found.get(name)?.[0];
  const title = first('dc:title');
  if (title) metadata.title = title;
  const author = first('dc:creator');
  if (author) metadata.author = author;
  const subject = first('dc:subject');
  if (subject) metadata.subject = subject;
  const keywords = first('cp:keywords');
  if (keywords) metadata.keywords = keywords.split(/[,;]/).map((k) => k.trim()).filter(Boolean);
  const created = first('dcterms:created');
  if (created) metadata.created = created;
  const language = first('dc:language');
  if (language) metadata.language = language;
  const description = first('dc:description');
  if (description) metadata.description = description;
  return metadata;
}
