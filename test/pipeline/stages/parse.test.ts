import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import iconv from 'iconv-lite';
import { parseFile, type ParseOptions } from '../../../src/pipeline/stages/parse.js';
import type { ParseOutcome, ParsedDocument } from '../../../src/pipeline/types.js';
import { sharedPath } from '../../helpers/shared.js';
import { DATASET_EXPECTATIONS } from './parse.dataset.js';

const OPTIONS: ParseOptions = { maxFileBytes: 50 * 1024 * 1024, maxTextChars: 1_000_000 };

function listFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? listFiles(full, base) : [path.relative(base, full)];
  });
}

function expectOk(outcome: ParseOutcome): ParsedDocument {
  if (!outcome.ok) expect.fail(`expected a parsed document, got ${outcome.code}: ${outcome.reason}`);
  return outcome.doc;
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('parseFile', () => {
  describe('on every document of the formats dataset', () => {
    const root = sharedPath('datasets', 'formats');
    const files = listFiles(root).filter((f) => f !== 'SOURCE.md');

    it('has an expectation for every file, and a file for every expectation', () => {
      expect(files.sort()).to.deep.equal(Object.keys(DATASET_EXPECTATIONS).sort());
      expect(files.length).to.equal(107);
    });

    for (const [relative, expected] of Object.entries(DATASET_EXPECTATIONS)) {
      it(relative, async () => {
        const full = path.join(root, relative);
        const outcome = await parseFile(full, OPTIONS);
        if ('code' in expected) {
          if (outcome.ok) expect.fail(`expected failure ${expected.code}, got a ${outcome.doc.format} document`);
          expect(outcome.code).to.equal(expected.code);
          expect(outcome.reason).to.match(expected.reason);
          expect(outcome.facts?.path).to.equal(full); // still indexable by name
          return;
        }
        const doc = expectOk(outcome);
        expect(doc.format).to.equal(expected.format);
        expect(doc.contentHash).to.equal(sha256(readFileSync(full)));
        expect(doc.filename).to.equal(path.basename(relative));
        if (expected.noText) {
          expect(doc.text).to.equal('');
          expect(doc.note).to.equal('no extractable text');
        } else {
          for (const phrase of expected.phrases) expect(doc.text).to.include(phrase);
          for (const phrase of expected.absent ?? []) expect(doc.text).not.to.include(phrase);
          expect(doc.text).not.to.match(/[ \t]{2,}|\n{3,}/); // normalised
        }
        if (expected.title !== undefined) expect(doc.metadata.title ?? null).to.equal(expected.title);
      });
    }
  });

  describe('on generated files', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'filesift-parse-'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    const write = (name: string, content: Buffer | string) => {
      const file = path.join(dir, name);
      writeFileSync(file, content);
      return file;
    };

    it('decodes UTF-16LE with a BOM', async () => {
      const file = write('notes.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Grüße aus Köln, 東京\r\nline two', 'utf16le')]));
      const doc = expectOk(await parseFile(file, OPTIONS));
      expect(doc.text).to.equal('Grüße aus Köln, 東京\nline two');
      expect(doc.metadata.encoding).to.equal('utf-16le');
    });

    it('decodes UTF-16BE without a BOM', async () => {
      const file = write('notes.txt', Buffer.from(iconv.encode('Plain English words in big-endian UTF-16.', 'utf-16be')));
      const doc = expectOk(await parseFile(file, OPTIONS));
      expect(doc.text).to.equal('Plain English words in big-endian UTF-16.');
      expect(doc.metadata.encoding).to.equal('utf-16be');
    });

    it('decodes a legacy Cyrillic code page (windows-1251)', async () => {
      const text = 'Съешь же ещё этих мягких французских булок, да выпей чаю. Широкая электрификация южных губерний даст мощный толчок подъёму сельского хозяйства.';
      const file = write('pangram.txt', iconv.encode(text, 'windows-1251'));
      expect(expectOk(await parseFile(file, OPTIONS)).text).to.equal(text);
    });

    it('indexes a file over the size limit by name only, hashing it by streaming', async () => {
      const content = Buffer.from('%PDF-1.4\n' + 'x'.repeat(5000));
      const file = write('big.pdf', content);
      const doc = expectOk(await parseFile(file, { maxFileBytes: 1000, maxTextChars: 1000 }));
      expect(doc.text).to.equal('');
      expect(doc.note).to.equal('over size limit');
      expect(doc.format).to.equal('pdf');
      expect(doc.size).to.equal(content.length);
      expect(doc.contentHash).to.equal(sha256(content));
    });

    it('hashes over-size files larger than one streaming chunk correctly', async () => {
      const content = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
      const file = write('blob.bin', content);
      const doc = expectOk(await parseFile(file, { maxFileBytes: 1024, maxTextChars: 1000 }));
      expect(doc.contentHash).to.equal(sha256(content));
      expect(doc.note).to.equal('over size limit');
    });

    it('parses an empty file as an empty document', async () => {
      const file = write('empty.docx', '');
      const doc = expectOk(await parseFile(file, OPTIONS));
      expect(doc.text).to.equal('');
      expect(doc.size).to.equal(0);
      expect(doc.note).to.equal('empty file');
      expect(doc.contentHash).to.equal(sha256(Buffer.alloc(0)));
    });

    it('reads a PDF by its content even when named .txt', async () => {
      const file = write('report.txt', readFileSync(sharedPath('datasets', 'formats', 'pdf', 'testPageNumber.pdf')));
      const doc = expectOk(await parseFile(file, OPTIONS));
      expect(doc.format).to.equal('pdf');
      expect(doc.text).to.include('This is page one.');
    });

    it('reads a DOCX without an extension', async () => {
      const file = write('README', readFileSync(sharedPath('datasets', 'formats', 'docx', 'testOCR.docx')));
      const doc = expectOk(await parseFile(file, OPTIONS));
      expect(doc.extension).to.equal('');
      expect(doc.format).to.equal('docx');
      expect(doc.text).to.include('Here is an embedded image:');
    });

    it('recognises HTML without an extension', async () => {
      const file = write('page', '<!DOCTYPE html><html><head><title>Hello page</title><style>p{}</style></head><body><p>Body words</p></body></html>');
      const doc = expectOk(await parseFile(file, OPTIONS));
      expect(doc.format).to.equal('html');
      expect(doc.metadata.title).to.equal('Hello page');
      expect(doc.text).to.equal('Body words');
    });

    it('records a truncated DOCX as corrupt with the ZIP error', async () => {
      const whole = readFileSync(sharedPath('datasets', 'formats', 'docx', 'testWORD_embedded_pics.docx'));
      const file = write('cut.docx', whole.subarray(0, Math.floor(whole.length / 2)));
      const outcome = await parseFile(file, OPTIONS);
      expect(outcome.ok).to.equal(false);
      if (outcome.ok) return;
      expect(outcome.code).to.equal('corrupt');
      expect(outcome.reason).to.match(/^DOCX is not a valid ZIP archive: /);
      expect(outcome.facts?.filename).to.equal('cut.docx');
    });

    it('records a .pdf that is not a PDF as corrupt', async () => {
      const file = write('fake.pdf', Buffer.from([0x00, 0x01, 0x02, 0x03, 0xff, 0xfe, 0x00, 0x10]));
      const outcome = await parseFile(file, OPTIONS);
      expect(outcome.ok ? 'ok' : outcome.code).to.equal('corrupt');
      expect(outcome.ok ? '' : outcome.reason).to.match(/^PDF is damaged or not really a PDF file/);
    });

    it('records a damaged PDF body as corrupt', async () => {
      const file = write('broken.pdf', '%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF');
      const outcome = await parseFile(file, OPTIONS);
      expect(outcome.ok ? 'ok' : outcome.code).to.equal('corrupt');
      expect(outcome.ok ? '' : outcome.reason).to.match(/^PDF /);
    });

    it('indexes an unknown binary by name with no text', async () => {
      const bytes = Buffer.alloc(4096);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 251;
      const doc = expectOk(await parseFile(write('data.bin', bytes), OPTIONS));
      expect(doc.format).to.equal('binary');
      expect(doc.text).to.equal('');
      expect(doc.note).to.equal('no extractable text');
    });

    it('names an image from its magic bytes even with a wrong extension', async () => {
      const png = Buffer.concat([
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
        Buffer.from('IHDR'),
        Buffer.alloc(64),
      ]);
      const doc = expectOk(await parseFile(write('photo.txt', png), OPTIONS));
      expect(doc.format).to.equal('image');
      expect(doc.mime).to.equal('image/png');
      expect(doc.text).to.equal('');
    });

    it('cuts text at maxTextChars and says so', async () => {
      const file = write('long.txt', 'word '.repeat(10_000));
      const doc = expectOk(await parseFile(file, { maxFileBytes: 1e6, maxTextChars: 1000 }));
      expect(doc.textTruncated).to.equal(true);
      expect(doc.text.length).to.be.at.most(1000).and.at.least(900);
      expect(doc.text.endsWith('word')).to.equal(true);
    });

    it('reports a missing file as not_found', async () => {
      const outcome = await parseFile(path.join(dir, 'nope.txt'), OPTIONS);
      expect(outcome.ok ? 'ok' : outcome.code).to.equal('not_found');
    });

    it('reports a directory as not_a_file', async () => {
      mkdirSync(path.join(dir, 'folder.txt'));
      const outcome = await parseFile(path.join(dir, 'folder.txt'), OPTIONS);
      expect(outcome.ok ? 'ok' : outcome.code).to.equal('not_a_file');
      expect(outcome.ok ? '' : outcome.reason).to.include('is a directory');
    });

    it('reports a named pipe as not_a_file without blocking on it', async () => {
      const fifo = path.join(dir, 'pipe');
      execFileSync('mkfifo', [fifo]);
      const outcome = await parseFile(fifo, OPTIONS);
      expect(outcome.ok ? 'ok' : outcome.code).to.equal('not_a_file');
      expect(outcome.ok ? '' : outcome.reason).to.include('named pipe');
    });

    // Links are never followed (src/lib/no-follow.ts): a link, dangling, looping or whole, is not a file to read.
    it('reports a dangling symbolic link as a link, not a file', async () => {
      const link = path.join(dir, 'link.txt');
      symlinkSync(path.join(dir, 'gone.txt'), link);
      const outcome = await parseFile(link, OPTIONS);
      expect(outcome.ok ? 'ok' : outcome.code).to.equal('not_a_file');
      expect(outcome.ok ? '' : outcome.reason).to.include('symbolic link');
    });

    it('reports a symbolic link loop as a link, not a file', async () => {
      const a = path.join(dir, 'a.txt');
      const b = path.join(dir, 'b.txt');
      symlinkSync(b, a);
      symlinkSync(a, b);
      const outcome = await parseFile(a, OPTIONS);
      expect(outcome.ok ? 'ok' : outcome.code).to.equal('not_a_file');
      expect(outcome.ok ? '' : outcome.reason).to.include('symbolic link');
    });
  });
});
