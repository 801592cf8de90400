import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { extractDocument, guessFormat } from '../../../src/pipeline/formats/index.js';
import { sharedPath } from '../../helpers/shared.js';

const extract = (text: string | Buffer, extension = '') =>
  extractDocument({ bytes: Buffer.isBuffer(text) ? text : Buffer.from(text), extension, maxTextChars: 10_000 });

describe('extractDocument', () => {
  it('sniffs e-mail, mailboxes, JSON and XML in files without an extension', async () => {
    const eml = await extract('Received: from x\nFrom: a@b.c\nSubject: Hi there\n\nBody text\n');
    const mbox = await extract('From a@b.c Mon Jan  1 00:00:00 2024\nFrom: a@b.c\nSubject: S\n\nMailbox body\n');
    const json = await extract('{"greeting": "hello"}');
    const xml = await extract('<?xml version="1.0"?><note><body>xml words</body></note>');
    expect(eml.ok && [eml.format, eml.metadata.title]).to.deep.equal(['email', 'Hi there']);
    expect(mbox.ok && [mbox.format, mbox.text.includes('Mailbox body')]).to.deep.equal(['mbox', true]);
    expect(json.ok && [json.format, json.text]).to.deep.equal(['json', 'greeting: hello']);
    expect(xml.ok && [xml.format, xml.text]).to.deep.equal(['xml', 'xml words']);
  });

  it('reads a git log without an extension as plain text, not as an e-mail', async () => {
    const log = 'commit 3f2a9c0\nAuthor: Ann Example <ann@example.org>\nDate:   Thu Feb 9 09:39:41 2023 +0100\n\n    Release 3.7.9\n';
    const result = await extract(log);
    expect(result.ok && [result.format, result.text.includes('Release 3.7.9')]).to.deep.equal(['text', true]);
    // The same head without its first line is still no mail: Author: and Date: are not mail's own headers.
    const headless = await extract(log.slice(log.indexOf('\n') + 1));
    expect(headless.ok && headless.format).to.equal('text');
  });

  it('keeps a .txt with mail headers as plain text', async () => {
    const result = await extract('From: a@b.c\nSubject: Hi\n\nBody\n', 'txt');
    expect(result.ok && result.format).to.equal('text');
  });

  it('reads an .xls that is really an HTML export as HTML', async () => {
    const result = await extract('<html><body><table><tr><td>Exported cell</td></tr></table></body></html>', 'xls');
    expect(result.ok && [result.format, result.text]).to.deep.equal(['html', 'Exported cell']);
  });

  it('reports a damaged OLE container as corrupt, naming the format', async () => {
    const whole = readFileSync(sharedPath('datasets', 'formats', 'doc', 'testWORD_no_format.doc'));
    const result = await extract(whole.subarray(0, 600), 'doc');
    expect(result.ok).to.equal(false);
    expect(!result.ok && result.code).to.equal('corrupt');
    expect(!result.ok && result.reason).to.match(/^DOC /);
  });
});

describe('guessFormat', () => {
  it('names formats from the first bytes without opening containers', async () => {
    expect(await guessFormat(Buffer.from('%PDF-1.7 ...'), 'bin')).to.deep.equal({ format: 'pdf', mime: 'application/pdf' });
    expect(await guessFormat(Buffer.from('PK\u0003\u0004rest'), 'docx')).to.deep.equal({ format: 'docx', mime: 'application/zip' });
    expect(await guessFormat(Buffer.from('just words'), '')).to.deep.equal({ format: 'text', mime: 'text/plain' });
  });
});
