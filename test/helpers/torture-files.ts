/**
 * Hostile documents for the parser-torture bench (bench/parse-torture.ts), written into a folder: each one is
 * the shape of an attack or an accident that once stalled or bloated the pipeline (issue 16). They are made
 * here, not committed: some are tens of megabytes.
 */
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { once } from 'node:events';
import CFB from 'cfb';
import { write7z } from './sevenzip-writer.js';
import { writeTarGzBomb } from './tar-writer.js';
import { writeZip } from './zip-writer.js';

export interface TortureFile {
  name: string;
  /** What must happen to it: the outcome the bench checks. */
  expect: string;
  write(file: string): Promise<void>;
}

export const SENTENCE = 'The quick brown fox jumps over the lazy dog while the archive keeps its records in order. ';

/** Writes `total` bytes of `unit` repeated, streaming (never the whole file in memory). */
export async function writeRepeated(file: string, unit: string, total: number, head = '', tail = ''): Promise<void> {
  const out = createWriteStream(file);
  const block = Buffer.from(unit.repeat(Math.max(1, Math.floor((1 << 20) / unit.length))));
  if (head) out.write(head);
  for (let written = 0; written < total; written += block.length) {
    if (!out.write(block)) await once(out, 'drain');
  }
  out.end(tail);
  await once(out, 'finish');
}

/** A PDF of `pages` pages, one of them with text: the page tree is flat and every page its own object. */
export async function writePdf(file: string, pages: number): Promise<void> {
  const out = createWriteStream(file);
  const offsets: number[] = [];
  let position = 0;
  const emit = async (text: string) => {
    position += Buffer.byteLength(text, 'latin1');
    if (!out.write(text, 'latin1')) await once(out, 'drain');
  };
  const object = async (id: number, body: string) => {
    offsets[id] = position;
    await emit(`${id} 0 obj\n${body}\nendobj\n`);
  };
  await emit('%PDF-1.4\n');
  const firstPage = 5;
  await object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  const kids: string[] = [];
  for (let i = 0; i < pages; i++) kids.push(`${firstPage + i} 0 R`);
  await object(2, `<< /Type /Pages /Count ${pages} /Kids [${kids.join(' ')}] >>`);
  const stream = 'BT /F1 12 Tf 72 720 Td (The only page with text: torture survivor) Tj ET';
  await object(3, `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  await object(4, '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  for (let i = 0; i < pages; i++) {
    const content = i === 0 ? ' /Contents 3 0 R' : '';
    await object(firstPage + i, `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792]${content} /Resources << /Font << /F1 4 0 R >> >> >>`);
  }
  const xref = position;
  const count = firstPage + pages;
  await emit(`xref\n0 ${count}\n0000000000 65535 f \n`);
  for (let id = 1; id < count; id++) await emit(`${String(offsets[id]).padStart(10, '0')} 00000 n \n`);
  await emit(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  out.end();
  await once(out, 'finish');
}

export function epub(chapters: number, spineRepeats: number): Buffer {
  const manifest = Array.from({ length: chapters }, (_, i) => `<item id="c${i}" href="c${i}.xhtml" media-type="application/xhtml+xml"/>`).join('');
  const refs = Array.from({ length: chapters }, (_, i) => `<itemref idref="c${i}"/>`).join('');
  const opf =
    `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">` +
    `<dc:title>Spine bomb</dc:title></metadata><manifest>${manifest}</manifest><spine>${refs.repeat(spineRepeats)}</spine></package>`;
  const chapter = (i: number) => `<html xmlns="http://www.w3.org/1999/xhtml"><body><p>Chapter ${i}. ${SENTENCE.repeat(20)}</p></body></html>`;
  return writeZip([
    { name: 'mimetype', data: 'application/epub+zip', deflate: false },
    { name: 'META-INF/container.xml', data: '<?xml version="1.0"?><container xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>' },
    { name: 'content.opf', data: opf },
    ...Array.from({ length: chapters }, (_, i) => ({ name: `c${i}.xhtml`, data: chapter(i) })),
  ]);
}

/** A DOCX whose body is one short paragraph of text followed by `tags` empty runs. */
export function docx(body: string, options: { dataDescriptors?: boolean } = {}): Buffer {
  const document = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`;
  return writeZip(
    [
      {
        name: '[Content_Types].xml',
        data: '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      },
      {
        name: '_rels/.rels',
        data: '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
      },
      { name: 'word/document.xml', data: document },
    ],
    options,
  );
}

/** A FITS image: an ASCII header of 80-character cards in 2880-byte blocks, then big-endian binary pixels. */
export function fits(pixels: number): Buffer {
  const cards = ['SIMPLE  =                    T', 'BITPIX  =                  -32', 'NAXIS   =                    1', `NAXIS1  = ${String(pixels).padStart(20)}`];
  for (let i = 0; i < 250; i++) cards.push(`COMMENT   observation log line ${i}: telescope pointing and exposure details`);
  cards.push('END');
  const header = cards.map((c) => c.padEnd(80)).join('');
  const headerBlock = Buffer.from(header.padEnd(Math.ceil(header.length / 2880) * 2880), 'latin1');
  const data = Buffer.alloc(Math.ceil((pixels * 4) / 2880) * 2880);
  for (let i = 0; i < pixels; i++) data.writeFloatBE(Math.sin(i / 50) * 1000, i * 4);
  return Buffer.concat([headerBlock, data]);
}

/** An S/MIME signed message (.p7m, PKCS#7 signedData in BER): the mail in clear, then certificates (binary). */
export function p7m(): Buffer {
  const oid = Buffer.from([0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x07, 0x02]);
  const mail = Buffer.from(`Content-Type: text/plain\r\n\r\n${SENTENCE.repeat(200)}\r\n`);
  const certificates = Buffer.alloc(6000);
  for (let i = 0; i < certificates.length; i++) certificates[i] = (i * 151 + 7) % 256;
  return Buffer.concat([Buffer.from([0x30, 0x80]), oid, Buffer.from([0xa0, 0x80, 0x30, 0x80, 0x04, 0x82, mail.length >> 8, mail.length & 0xff]), mail, certificates]);
}

/** An Outlook .msg whose 8-bit strings are Big5 (code page 950), as a Taiwanese Outlook writes them. */
export function big5Msg(): Buffer {
  const cfb = CFB.utils.cfb_new();
  // 會議紀錄 (meeting minutes) and 明天下午三點開會 (meeting tomorrow at three) in Big5.
  const subject = Buffer.from([0xb7, 0x7c, 0xc4, 0xb3, 0xac, 0xf6, 0xbf, 0xfd]);
  const body = Buffer.from([0xa9, 0xfa, 0xa4, 0xd1, 0xa4, 0x55, 0xa4, 0xc8, 0xa4, 0x54, 0xc2, 0x49, 0xb6, 0x7d, 0xb7, 0x7c]);
  CFB.utils.cfb_add(cfb, '/__substg1.0_0037001E', subject);
  CFB.utils.cfb_add(cfb, '/__substg1.0_1000001E', body);
  CFB.utils.cfb_add(cfb, '/__substg1.0_0C1A001E', Buffer.from('Lin'));
  // The property stream: a 32-byte header, then 16-byte entries; PR_MESSAGE_CODEPAGE (0x3FFD, PT_LONG) = 950.
  const props = Buffer.alloc(32 + 16);
  props.writeUInt32LE(0x3ffd0003, 32);
  props.writeUInt32LE(6, 36);
  props.writeUInt32LE(950, 40);
  CFB.utils.cfb_add(cfb, '/__properties_version1.0', props);
  return Buffer.from(CFB.write(cfb, { type: 'buffer' }) as Uint8Array);
}

/** An RFC 822 message whose headers (long Received and DKIM lines) run past 4 KB, saved without an extension. */
export function longHeaderMail(): string {
  const received = Array.from({ length: 30 }, (_, i) => `Received: from relay${i}.example.net (relay${i}.example.net [192.0.2.${i}]) by mx.example.org with ESMTPS id ${'x'.repeat(40)}; Mon, 2 Mar 2026 10:00:${String(i).padStart(2, '0')} +0000`);
  return [
    ...received,
    'From: Ana <ana@example.org>',
    'To: Bo <bo@example.org>',
    'Subject: Quarterly torture report',
    'Message-ID: <torture@example.org>',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'The quarterly report is attached; the numbers look good.',
    '',
  ].join('\r\n');
}

/** An archive nested `levels` deep: level 1 is the file, the innermost holds `bottom.txt`. */
export function nestedZip(levels: number, bottom: string): Buffer {
  let zip = writeZip([{ name: 'bottom.txt', data: bottom }]);
  for (let level = levels - 1; level >= 1; level--) zip = writeZip([{ name: `level${level + 1}.zip`, data: zip }]);
  return zip;
}

/** A zip bomb: `outer` copies of a ZIP holding `inner` members of `memberMb` MB of text each (10 x 10 x 100 MB: 10 GB). */
export function zipBomb(outer: number, inner: number, memberMb: number): Buffer {
  const member = Buffer.alloc(memberMb * 1024 * 1024, 'a');
  const nested = writeZip(Array.from({ length: inner }, (_, i) => ({ name: `layer/part${i}.txt`, data: member })));
  return writeZip(Array.from({ length: outer }, (_, i) => ({ name: `bomb${i}.zip`, data: nested, deflate: false })));
}

/** A ZIP of `count` one-line text members. */
export function manyMembersZip(count: number): Buffer {
  return writeZip(Array.from({ length: count }, (_, i) => ({ name: `notes/n${i}.txt`, data: `note number ${i}` })));
}

export const PEM_KEY = ['-----BEGIN RSA PRIVATE KEY-----', ...Array.from({ length: 12 }, () => 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun'), '-----END RSA PRIVATE KEY-----'].join('\n');

export const TORTURE_FILES: readonly TortureFile[] = [
  { name: 'long-word.txt', expect: 'indexed in seconds (a 50,000-character word is not stemmed)', write: (f) => writeFile(f, `Intro. ${'a'.repeat(50_000)} outro.\n`) },
  { name: 'huge-plain.txt', expect: 'indexed, cut at the text limit, peak memory not growing with the 92 MB', write: (f) => writeRepeated(f, SENTENCE, 92 * 1024 * 1024) },
  { name: 'many-pages.pdf', expect: 'indexed with the one page of text, cut (text_truncated), no timeout', write: (f) => writePdf(f, 500_000) },
  { name: 'spine-bomb.epub', expect: 'indexed with its chapters, no timeout', write: (f) => writeFile(f, epub(20, 50_000)) },
  { name: 'many-tags.docx', expect: 'indexed with its paragraph, no timeout', write: (f) => writeFile(f, docx(`<w:p><w:r><w:t>Survivor paragraph of the tag storm.</w:t></w:r></w:p>${'<w:r/>'.repeat(5_000_000)}`)) },
  { name: 'deep.html', expect: 'indexed with its text, no timeout', write: (f) => writeRepeated(f, '<div>', 2_000_000 * 5, '<html><body><p>Deep survivor text.</p>', 'the bottom of the well</body></html>') },
  { name: 'image.fits', expect: 'binary: indexed by name only, no text', write: (f) => writeFile(f, fits(400_000)) },
  { name: 'signed.p7m', expect: 'binary: indexed by name only, no text', write: (f) => writeFile(f, p7m()) },
  { name: 'big5.msg', expect: 'indexed, Big5 subject and body read as Chinese (會議紀錄)', write: (f) => writeFile(f, big5Msg()) },
  { name: 'streamed.docx', expect: 'indexed (entries with data descriptors)', write: (f) => writeFile(f, docx('<w:p><w:r><w:t>Written by a streaming zip writer.</w:t></w:r></w:p>', { dataDescriptors: true })) },
  { name: 'mail-long-headers', expect: 'indexed as e-mail (subject as title) though its headers pass 4 KB', write: (f) => writeFile(f, longHeaderMail()) },
  { name: 'zip-bomb.zip', expect: 'archive (10 GB inflated, nested): cut (text_truncated) at the text and byte limits, no timeout', write: (f) => writeFile(f, zipBomb(10, 10, 100)) },
  { name: 'tar-bomb.tar.gz', expect: 'archive: one 1 GB member decompressed only to the 64 MB budget, cut, no timeout', write: (f) => writeTarGzBomb(f, 'huge.log', 1024 * 1024 * 1024, 'q') },
  {
    name: 'bomb.7z',
    expect: 'archive: a 300 MB member in one solid block with the others: never decoded, the members behind it listed by name, cut',
    write: async (f) => writeFile(f, await write7z([{ name: 'a.txt', data: SENTENCE }, { name: 'b-huge.txt', data: Buffer.alloc(300 * 1024 * 1024, 'h') }, { name: 'c.txt', data: SENTENCE }])),
  },
  { name: 'many-members.zip', expect: 'archive: 1,000 of 60,000 members read, the rest listed by name, cut', write: (f) => writeFile(f, manyMembersZip(60_000)) },
  { name: 'deep-nest.zip', expect: 'archive: opened 2 levels deep, the rest by name, cut', write: (f) => writeFile(f, nestedZip(20, 'the bottom of the nest')) },
  { name: 'server_key.txt', expect: 'excluded by its content (a private key block)', write: (f) => writeFile(f, `Production key, do not share:\n${PEM_KEY}\n`) },
];

/** Writes every torture file into `dir`; answers their paths. */
export async function writeTortureFiles(dir: string): Promise<string[]> {
  const paths: string[] = [];
  for (const t of TORTURE_FILES) {
    const file = path.join(dir, t.name);
    await t.write(file);
    paths.push(file);
  }
  return paths;
}
