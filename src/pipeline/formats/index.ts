/**
 * The format registry: picks an extractor from the content first (magic bytes, then what is inside a ZIP or
 * OLE container) and the extension second, so a PDF named .txt is read as a PDF and a file without extension
 * still gets the right reader. Anything not recognised as text ends in the binary fallback (indexed by name
 * only). Every library error is caught here and becomes a 'corrupt' failure naming the format.
 */
import { extractArchive, MAX_ARCHIVE_BYTES, MAX_MEMBER_BYTES, type MemberParser } from './archive.js';
import { describeBinary, extractBinary, knownBinary } from './binary.js';
import { compressionOf } from './compressed.js';
import { extractEml, extractMbox } from './email.js';
import { looksLikeText } from './encoding.js';
import { extractEpub } from './epub.js';
import { extractHtml } from './html.js';
import { extractJson } from './json.js';
import { extractDoc } from './legacy-doc.js';
import { extractPpt } from './legacy-ppt.js';
import { extractXls } from './legacy-xls.js';
import { extractMan, isManExtension, looksLikeManPage } from './man.js';
import { extractMarkdown } from './markdown.js';
import { extractOoxml, ooxmlKind } from './office-openxml.js';
import { isOle, openOle } from './ole.js';
import { mainPart } from './opc.js';
import { extractOpenDocument } from './opendocument.js';
import { extractMsg } from './outlook-msg.js';
import { extractPdf } from './pdf.js';
import { extractRtf, isRtf } from './rtf.js';
import { extractPlainText } from './text.js';
import { describeError, failure, type ExtractInput, type ExtractResult, type Extractor } from './types.js';
import { extractXml } from './xml.js';
import { is7z, open7z } from './sevenzip.js';
import { isTar, tarMembers } from './tar.js';
import { isZip, openZip, type ZipArchive } from './zip.js';

export type { ExtractInput, ExtractResult } from './types.js';

/** Text formats chosen by extension (their content has no reliable magic). */
const TEXT_BY_EXTENSION: Record<string, Extractor> = {
  html: extractHtml,
  htm: extractHtml,
  xhtml: extractHtml,
  shtml: extractHtml,
  md: extractMarkdown,
  markdown: extractMarkdown,
  mdown: extractMarkdown,
  json: extractJson,
  jsonl: extractJson,
  ndjson: extractJson,
  geojson: extractJson,
  xml: extractXml,
  xsd: extractXml,
  xsl: extractXml,
  xslt: extractXml,
  rss: extractXml,
  atom: extractXml,
  svg: extractXml,
  eml: extractEml,
  mbox: extractMbox,
  mbx: extractMbox,
  csv: extractPlainText('csv', 'text/csv'),
  tsv: extractPlainText('csv', 'text/tab-separated-values'),
};
const plainText = extractPlainText('text', 'text/plain');

/** Extensions of container formats: if the content is not that container, the file is damaged. */
const ZIP_EXTENSIONS = new Set(['docx', 'docm', 'dotx', 'xlsx', 'xlsm', 'pptx', 'pptm', 'odt', 'ods', 'odp', 'odg', 'ott', 'ots', 'otp', 'epub', 'zip', 'jar']);
const OLE_EXTENSIONS = new Set(['doc', 'dot', 'xls', 'xlt', 'ppt', 'pps', 'pot', 'msg']);

/** 'DOCX', 'PDF', ...: how reasons name a format. */
function label(extension: string, fallback = 'File'): string {
  return extension ? extension.toUpperCase() : fallback;
}

export async function extractDocument(input: ExtractInput): Promise<ExtractResult> {
  try {
    return await dispatch(input);
  } catch (err) {
    return failure('corrupt', `${label(input.extension)} could not be read: ${describeError(err)}`);
  }
}

async function dispatch(input: ExtractInput): Promise<ExtractResult> {
  const { bytes, extension } = input;
  if (bytes.length === 0) {
    return { ok: true, format: 'empty', mime: 'application/x-empty', text: '', metadata: {}, note: 'empty file' };
  }
  if (isPdf(bytes)) return extractPdf(input);
  if (isZip(bytes)) return extractFromZip(input);
  if (isOle(bytes)) return extractFromOle(input);
  if (isRtf(bytes)) return extractRtf(input);
  if (isTar(bytes)) return extractArchive(TAR, () => tarMembers(bytes, MAX_MEMBER_BYTES), input, MEMBERS);
  if (is7z(bytes)) return extractFrom7z(input);
  if (knownBinary(bytes)) return extractBinary(bytes);
  if (extension === 'pdf' || ZIP_EXTENSIONS.has(extension) || OLE_EXTENSIONS.has(extension)) {
    // Not the container its name promises. Exported "spreadsheets" that are really HTML or CSV are common.
    if (looksLikeText(bytes)) return sniffText(input);
    return failure('corrupt', `${label(extension)} is damaged or not really a ${label(extension)} file (unrecognised content)`);
  }
  const byExtension = TEXT_BY_EXTENSION[extension];
  if (byExtension && (looksLikeText(bytes) || startsWithMarkup(bytes))) return byExtension(input);
  if (!looksLikeText(bytes)) return extractBinary(bytes);
  return sniffText(input);
}

/**
 * Whether the extractor needs the whole file (a container format: PDF, ZIP-based, OLE, RTF), or only its opening
 * (text, markup, anything else: the parse stage then keeps only as much as the text limit can use). A compressed
 * file is read whole: its content's opening is known only once decompressed.
 */
export function needsWholeFile(head: Buffer): boolean {
  return isPdf(head) || isZip(head) || isOle(head) || isRtf(head) || isTar(head) || is7z(head) || compressionOf(head) !== null;
}

/**
 * The decompressed bytes worth keeping of a compressed file whose content opens with `head`: a container whole up
 * to the size limit (past it, the file is indexed by name only), a tar up to the archive budget (a tar bomb is
 * then read as far as that, as text_truncated), anything else its text opening.
 */
export function decompressedBudget(head: Buffer, maxFileBytes: number, textBytes: number): { bytes: number; whole: boolean } {
  if (isTar(head)) return { bytes: Math.min(maxFileBytes, MAX_ARCHIVE_BYTES), whole: false };
  return needsWholeFile(head) ? { bytes: maxFileBytes, whole: true } : { bytes: textBytes, whole: false };
}

/** Archive members are parsed by this registry (archive.ts calls back into it for each member). */
const MEMBERS: MemberParser = { extract: extractDocument, needsWholeFile };
const TAR = { format: 'tar', mime: 'application/x-tar' };
const ZIP = { format: 'zip', mime: 'application/zip' };
const SEVEN_ZIP = { format: '7z', mime: 'application/x-7z-compressed' };

/** %PDF- within the first KB (some writers put junk before it, and readers accept that). */
function isPdf(bytes: Buffer): boolean {
  return bytes.subarray(0, 1024).includes('%PDF-');
}

function startsWithMarkup(bytes: Buffer): boolean {
  return /^\s*</.test(bytes.subarray(0, 64).toString('latin1'));
}

/** Bytes of a text file looked at to recognise what it is (e-mail headers can run to tens of KB). */
const TEXT_SNIFF_BYTES = 64 * 1024;
/**
 * Headers only mail has. Not `Date:` or `To:` alone: a `git log` (Author:, Date:, a blank line, the message) has
 * the shape of a header block too, and Debian ships many a changelog so (/usr/share/doc/libgnutls30/changelog.gz).
 */
const MAIL_HEADER = /^(from|subject|message-id|received|mime-version|return-path|dkim-signature|delivered-to|reply-to):/i;

/**
 * RFC 822 headers from the first line up to a blank line (continuation lines start with a space or a tab), with
 * at least one header only mail has. A line-by-line walk, not one regular expression: nested quantifiers over
 * lines backtrack exponentially on a long header block without its blank line.
 */
export function startsWithMailHeaders(head: string): boolean {
  let mailish = false;
  let headers = 0;
  let start = 0;
  while (start < head.length) {
    const newline = head.indexOf('\n', start);
    if (newline < 0) return false; // the head ends inside the headers: no blank line seen
    const line = head.slice(start, newline).replace(/\r$/, '');
    start = newline + 1;
    if (line === '') return headers > 0 && mailish;
    if (/^[ \t]/.test(line)) {
      if (headers === 0) return false;
      continue;
    }
    if (!/^[\w-]+: /.test(line)) return false;
    headers++;
    if (MAIL_HEADER.test(line)) mailish = true;
  }
  return false;
}

/**
 * Text without a telling extension: recognise HTML, XML, e-mail, mailboxes and JSON by their first bytes, and a
 * manual page by its section suffix (`ls.1`, `Git.3pm`) and its title request.
 */
function sniffText(input: ExtractInput): Promise<ExtractResult> {
  const head = input.bytes.subarray(0, TEXT_SNIFF_BYTES).toString('latin1').replace(/^\uFEFF|^\u00EF\u00BB\u00BF/, '');
  const start = head.trimStart().slice(0, 512).toLowerCase();
  if (start.startsWith('<!doctype html') || start.startsWith('<html') || /^<\?xml[^>]*>\s*<!doctype html|^<\?xml[^>]*>\s*<html/.test(start)) {
    return extractHtml(input);
  }
  if (start.startsWith('<?xml')) return extractXml(input);
  if (isManExtension(input.extension) && looksLikeManPage(head)) return extractMan(input);
  const known = TEXT_BY_EXTENSION[input.extension];
  if (known) return known(input);
  if (input.extension === '') {
    if (/^From \S+.*\n([\w-]+: .*\n)+/.test(head)) return extractMbox(input);
    if (startsWithMailHeaders(head)) return extractEml(input);
    if (/^\s*[{[]/.test(head)) return extractJson(input);
  }
  return plainText(input);
}

async function extractFromZip(input: ExtractInput): Promise<ExtractResult> {
  let zip: ZipArchive;
  try {
    zip = await openZip(input.bytes);
  } catch (err) {
    return failure('corrupt', `${label(input.extension, 'ZIP')} is not a valid ZIP archive: ${describeError(err)}`);
  }
  try {
    const mimetype = zip.has('mimetype') ? (await zip.read('mimetype', 256)).toString('latin1').trim() : '';
    if (mimetype.startsWith('application/vnd.oasis.opendocument.')) return await extractOpenDocument(zip, mimetype, input);
    if (mimetype === 'application/epub+zip' || zip.has('META-INF/container.xml')) return await extractEpub(zip, input);
    if (zip.has('[Content_Types].xml')) {
      const main = await mainPart(zip);
      const kind = ooxmlKind(main);
      if (kind && main) return await extractOoxml(zip, kind, main, input);
    }
    const members = zip.members().filter((m) => !m.directory);
    if (members.length > 0 && members.every((m) => m.encrypted)) {
      return failure('encrypted', `ZIP archive is encrypted (password required for all ${members.length} entries)`);
    }
    return await extractArchive(ZIP, () => members, input, MEMBERS);
  } finally {
    zip.close();
  }
}

async function extractFrom7z(input: ExtractInput): Promise<ExtractResult> {
  const archive = await open7z(input.bytes);
  if (!archive.ok) return failure(archive.encrypted ? 'encrypted' : 'corrupt', archive.encrypted ? archive.reason : `7Z could not be read: ${archive.reason}`);
  return extractArchive(SEVEN_ZIP, (budget) => archive.membersWithin(budget, MAX_MEMBER_BYTES), input, MEMBERS);
}

async function extractFromOle(input: ExtractInput): Promise<ExtractResult> {
  const ole = openOle(input.bytes);
  const has = (name: string) => ole.stream(name) !== undefined;
  if (has('EncryptedPackage')) {
    // Password-protected DOCX/XLSX/PPTX: the real package is ciphertext inside an OLE wrapper.
    return failure('encrypted', `${label(input.extension, 'Office document')} is encrypted (password required)`);
  }
  if (has('WordDocument')) return extractDoc(ole, input.maxTextChars);
  if (has('Workbook') || has('Book')) return extractXls(ole, input.maxTextChars);
  if (has('PowerPoint Document')) return extractPpt(ole, input.maxTextChars);
  if (ole.names.some((n) => n.startsWith('__substg1.0_') || n === '__properties_version1.0')) return extractMsg(input);
  const { mime } = await describeBinary(input.bytes);
  return { ok: true, format: 'ole', mime: mime === 'application/octet-stream' ? 'application/x-ole-storage' : mime, text: '', metadata: {}, note: 'no extractable text' };
}

/**
 * A cheap guess of format and MIME type from the first bytes and the extension, for files we do not read
 * (over the size limit). No container is opened.
 */
export async function guessFormat(head: Buffer, extension: string): Promise<{ format: string; mime: string }> {
  if (isPdf(head)) return { format: 'pdf', mime: 'application/pdf' };
  if (isRtf(head)) return { format: 'rtf', mime: 'application/rtf' };
  if (isZip(head)) return { format: ZIP_EXTENSIONS.has(extension) ? extension : 'zip', mime: 'application/zip' };
  if (isOle(head)) return { format: OLE_EXTENSIONS.has(extension) ? extension : 'ole', mime: 'application/x-ole-storage' };
  if (isTar(head)) return TAR;
  if (is7z(head)) return SEVEN_ZIP;
  const known = knownBinary(head);
  if (known) return known;
  if (looksLikeText(head)) {
    if (isManExtension(extension) && looksLikeManPage(head.toString('latin1'))) return { format: 'man', mime: 'text/troff' };
    return { format: 'text', mime: 'text/plain' };
  }
  return describeBinary(head);
}
