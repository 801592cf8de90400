/**
 * Outlook items (.msg: mail, notes, appointments) with @kenjiuno/msgreader, which reads the MAPI properties
 * out of the OLE container. Text is a header block, the plain body (or the HTML body through our HTML
 * extractor), and attachment names; the title is the subject.
 */
import msgreader from '@kenjiuno/msgreader';
import iconv from 'iconv-lite';
import type { DocumentMetadata } from '../types.js';
import { htmlToText } from './html.js';
import { normalizeText } from './normalize.js';
import { failure, type ExtractInput, type ExtractResult } from './types.js';

// The package is CommonJS with an ES-module-style default export, which Node hands us as `.default`.
const MsgReader = msgreader.default;

/** Code pages whose 8-bit strings msgreader already reads right (its default, and Unicode ones). */
const DEFAULT_CODEPAGES = new Set([1252, 20127, 28591, 65001, 1200]);

function read(bytes: Buffer, ansiEncoding?: string): ReturnType<InstanceType<typeof MsgReader>['getFileData']> {
  const reader = new MsgReader(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer);
  if (ansiEncoding) reader.parserConfig = { ansiEncoding };
  return reader.getFileData();
}

/**
 * The encoding of the message's 8-bit strings, from the code page it names (PidTagMessageCodepage, else
 * PidTagInternetCodepage): an Outlook in Taipei writes Big5 (950), one in Moscow windows-1251. msgreader reads
 * them as windows-1252 unless told.
 */
function ansiEncodingOf(data: { messageCodepage?: number; internetCodepage?: number }): string | undefined {
  const codepage = data.messageCodepage ?? data.internetCodepage;
  if (codepage === undefined || DEFAULT_CODEPAGES.has(codepage)) return undefined;
  const name = `cp${codepage}`;
  return iconv.encodingExists(name) ? name : undefined;
}

export async function extractMsg(input: ExtractInput): Promise<ExtractResult> {
  const { bytes } = input;
  let data = read(bytes);
  if (data.error) return failure('corrupt', `MSG could not be read: ${data.error}`);
  const encoding = ansiEncodingOf(data);
  if (encoding) data = read(bytes, encoding);

  const header: string[] = [];
  const from = [data.senderName, data.senderEmail ? `<${data.senderEmail}>` : ''].filter(Boolean).join(' ');
  if (from) header.push(`From: ${from}`);
  const to = (data.recipients ?? []).map((r) => r.name ?? r.email ?? '').filter(Boolean);
  if (to.length > 0) header.push(`To: ${to.join(', ')}`);
  if (data.subject) header.push(`Subject: ${data.subject}`);
  let body = data.body?.trim() ?? '';
  if (!body && data.bodyHtml) body = htmlToText(data.bodyHtml, input).text;
  const attachments = (data.attachments ?? []).map((a) => a.fileName ?? a.name ?? '').filter(Boolean);

  const metadata: DocumentMetadata = {};
  if (data.subject?.trim()) metadata.title = data.subject.trim();
  if (from) metadata.author = from;
  const created = data.creationTime ? new Date(data.creationTime) : undefined;
  if (created && !Number.isNaN(created.getTime())) metadata.created = created.toISOString();
  if (data.messageClass) metadata.messageClass = data.messageClass;
  if (attachments.length > 0) metadata.attachments = attachments;
  if (encoding) metadata.encoding = encoding;
  const text = [header.join('\n'), body, attachments.length > 0 ? `Attachments: ${attachments.join(', ')}` : ''].filter(Boolean).join('\n\n');
  return { ok: true, format: 'msg', mime: 'application/vnd.ms-outlook', text: normalizeText(text), metadata };
}
