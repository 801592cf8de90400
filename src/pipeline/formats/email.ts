/**
 * E-mail: single RFC 822 messages (.eml) and mailboxes (.mbox) with mailparser (Nodemailer's MIME parser:
 * charsets, encoded words, quoted-printable/base64, multipart). The text is a short header block (From, To,
 * Subject, Date), the plain-text body (or the HTML body through our HTML extractor), and attachment names.
 * The title is the Subject. Attachment contents are not extracted: one file, one document. mailparser loads
 * with the first message a thread reads (~15 MB of heap that most threads never need).
 */
import type { AddressObject, ParsedMail } from 'mailparser';
import type { DocumentMetadata } from '../types.js';
import { htmlToText } from './html.js';
import { normalizeText, TextCollector } from './normalize.js';
import type { ExtractInput, ExtractResult } from './types.js';

/** Messages read from one mailbox at most; the rest are left out (and the text marked truncated). */
const MAX_MESSAGES = 10_000;

const PARSER_OPTIONS = { skipHtmlToText: true, skipImageLinks: true, skipTextToHtml: true, skipTextLinks: true };

async function parseMail(bytes: Buffer): Promise<ParsedMail> {
  const { simpleParser } = await import('mailparser');
  return simpleParser(bytes, PARSER_OPTIONS);
}

function addresses(value: AddressObject | AddressObject[] | undefined): string {
  if (!value) return '';
  return (Array.isArray(value) ? value : [value]).map((a) => a.text).join(', ');
}

function messageText(mail: ParsedMail, maxTextChars: number): string {
  const lines: string[] = [];
  const from = addresses(mail.from);
  if (from) lines.push(`From: ${from}`);
  const to = addresses(mail.to);
  if (to) lines.push(`To: ${to}`);
  const cc = addresses(mail.cc);
  if (cc) lines.push(`Cc: ${cc}`);
  if (mail.subject) lines.push(`Subject: ${mail.subject}`);
  if (mail.date && !Number.isNaN(mail.date.getTime())) lines.push(`Date: ${mail.date.toISOString()}`);
  let body = mail.text?.trim() ?? '';
  if (!body && typeof mail.html === 'string') body = htmlToText(mail.html, maxTextChars).text;
  const attachments = mail.attachments.map((a) => a.filename).filter((n): n is string => !!n);
  return [lines.join('\n'), body, attachments.length > 0 ? `Attachments: ${attachments.join(', ')}` : '']
    .filter(Boolean)
    .join('\n\n');
}

function mailMetadata(mail: ParsedMail): DocumentMetadata {
  const metadata: DocumentMetadata = {};
  if (mail.subject?.trim()) metadata.title = mail.subject.trim();
  const from = addresses(mail.from);
  if (from) metadata.author = from;
  if (mail.date && !Number.isNaN(mail.date.getTime())) metadata.created = mail.date.toISOString();
  if (mail.attachments.length > 0) metadata.attachments = mail.attachments.map((a) => a.filename ?? '(unnamed)');
  return metadata;
}

export async function extractEml(input: ExtractInput): Promise<ExtractResult> {
  const mail = await parseMail(input.bytes);
  return {
    ok: true,
    format: 'email',
    mime: 'message/rfc822',
    text: normalizeText(messageText(mail, input.maxTextChars)),
    metadata: mailMetadata(mail),
  };
}

/**
 * Splits an mbox at its "From " separator lines (a line starting "From " at the start of the file or after
 * an empty line), undoing the ">From " quoting of body lines (mboxrd). Works on latin1 so bytes round-trip.
 */
export function splitMbox(bytes: Buffer): Buffer[] {
  const text = bytes.toString('latin1');
  const starts: number[] = [];
  const separator = /(?:^|\n\r?\n)(From [^\n]*\n)/g;
  for (let m = separator.exec(text); m; m = separator.exec(text)) {
    starts.push(m.index + m[0].length - (m[1]?.length ?? 0));
    if (starts.length > MAX_MESSAGES) break;
  }
  if (starts.length === 0) return [bytes];
  return starts.slice(0, MAX_MESSAGES).map((start, i) => {
    const end = starts[i + 1] ?? text.length;
    const message = text.slice(start, end).replace(/^From [^\n]*\n/, '').replace(/^>(>*From )/gm, '$1');
    return Buffer.from(message, 'latin1');
  });
}

export async function extractMbox(input: ExtractInput): Promise<ExtractResult> {
  const messages = splitMbox(input.bytes);
  const out = new TextCollector(input);
  let metadata: DocumentMetadata = {};
  let parsed = 0;
  for (const message of messages) {
    if (out.full) break;
    const mail = await parseMail(message);
    if (parsed === 0) metadata = mailMetadata(mail);
    out.push(messageText(mail, input.maxTextChars));
    out.push('\n\n');
    parsed++;
  }
  // A mailbox is many messages: the first Subject names it only if it is the only one.
  if (messages.length > 1) delete metadata.title;
  delete metadata.attachments;
  metadata.messages = messages.length;
  return {
    ok: true,
    format: 'mbox',
    mime: 'application/mbox',
    text: normalizeText(out.toString()),
    metadata,
    truncated: out.truncated || parsed < messages.length,
  };
}
