/**
 * Hostile and unusual files through the real parse stage (issue 16): each one once timed out, bloated memory, was
 * read as garbage or leaked a secret. Sizes are smaller than the torture bench's (bench/parse-torture.ts) where the
 * bound is what matters, not the size.
 */
import { expect } from 'chai';
import { mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseFile, type ParseOptions } from '../../../src/pipeline/stages/parse.js';
import type { ParseOutcome, ParsedDocument } from '../../../src/pipeline/types.js';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { big5Msg, docx, epub, fits, longHeaderMail, p7m, PEM_KEY, SENTENCE, writePdf, writeRepeated } from '../../helpers/torture-files.js';

const OPTIONS: ParseOptions = { maxFileBytes: 200 * 1024 * 1024, maxTextChars: 100_000, timeBudgetMs: 120_000 };

function expectOk(outcome: ParseOutcome): ParsedDocument {
  if (!outcome.ok) expect.fail(`expected a parsed document, got ${outcome.code}: ${outcome.reason}`);
  return outcome.doc;
}

/** parseFile in a thread whose heap is capped: running out of it fails the call (ERR_WORKER_OUT_OF_MEMORY). */
async function parseInCappedThread(file: string, heapMb: number): Promise<ParseOutcome> {
  const parseUrl = new URL('../../../src/pipeline/stages/parse.js', import.meta.url).href;
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     import(workerData.parseUrl).then((m) => m.parseFile(workerData.file, workerData.options)).then((r) => parentPort.postMessage(r));`,
    { eval: true, workerData: { parseUrl, file, options: OPTIONS }, resourceLimits: { maxOldGenerationSizeMb: heapMb } },
  );
  try {
    const [outcome] = (await once(worker, 'message')) as [ParseOutcome];
    return outcome;
  } finally {
    await worker.terminate();
  }
}

describe('parseFile on hostile input', function () {
  this.timeout(180_000);
  let dir: string;
  const at = (name: string) => path.join(dir, name);

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'filesift-hostile-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps only the opening of a huge text file: cut at the text limit, marked truncated', async () => {
    await writeRepeated(at('huge.txt'), SENTENCE, 24 * 1024 * 1024);
    const doc = expectOk(await parseFile(at('huge.txt'), OPTIONS));
    expect(doc.size).to.equal((await stat(at('huge.txt'))).size); // hashed and sized whole
    expect(doc.textTruncated).to.equal(true);
    expect(doc.text.length).to.be.at.most(OPTIONS.maxTextChars);
    expect(doc.text.length).to.be.greaterThan(OPTIONS.maxTextChars / 2);
  });

  it('reads a PDF whose flat page tree lists 200,000 pages in a bounded heap: the page with text, cut, noted', async () => {
    await writePdf(at('pages.pdf'), 200_000);
    // pdf.js opened this tree uncut with ~330 MB of heap (1.5 GB RSS at 500,000 pages); cut, it needs far less.
    const doc = expectOk(await parseInCappedThread(at('pages.pdf'), 192));
    expect(doc.format).to.equal('pdf');
    expect(doc.text).to.include('The only page with text: torture survivor');
    expect(doc.textTruncated).to.equal(true);
    expect(doc.metadata.pages).to.equal(200_000);
    expect(doc.note).to.equal('only the first 20,000 of at least 200,000 pages were read');
  });

  it('reads each EPUB chapter once, whatever the spine repeats (a spine bomb)', async () => {
    await writeFile(at('bomb.epub'), epub(5, 40_000));
    const doc = expectOk(await parseFile(at('bomb.epub'), OPTIONS));
    expect(doc.format).to.equal('epub');
    for (let i = 0; i < 5; i++) expect(doc.text.match(new RegExp(`Chapter ${i}\\.`, 'g'))).to.have.length(1);
  });

  it('keeps the text of a DOCX drowned in millions of empty tags', async () => {
    await writeFile(at('tags.docx'), docx(`<w:p><w:r><w:t>Survivor paragraph of the tag storm.</w:t></w:r></w:p>${'<w:r/>'.repeat(2_000_000)}`));
    expect(expectOk(await parseFile(at('tags.docx'), OPTIONS)).text).to.include('Survivor paragraph of the tag storm.');
  });

  it('keeps the text of HTML nested a million levels deep', async () => {
    await writeRepeated(at('deep.html'), '<div>', 1_000_000 * 5, '<html><body><p>Deep survivor text.</p>', 'the bottom of the well</body></html>');
    const doc = expectOk(await parseFile(at('deep.html'), OPTIONS));
    expect(doc.format).to.equal('html');
    expect(doc.text).to.include('Deep survivor text.');
  });

  it('takes a text header over binary data (FITS, PKCS#7 .p7m) for binary: no text', async () => {
    await writeFile(at('image.fits'), fits(200_000));
    await writeFile(at('signed.p7m'), p7m());
    for (const name of ['image.fits', 'signed.p7m']) {
      const doc = expectOk(await parseFile(at(name), OPTIONS));
      expect(doc.text, name).to.equal('');
      expect(doc.format, name).to.be.oneOf(['image', 'binary']);
    }
  });

  it('takes a static library (ar) and a text-named file of UTF-16-looking binary for binary: no text', async () => {
    // The opening of a Rust toolchain's librustc-stable_rt.asan.a: ar's magic, a member header, the symbol table's
    // big-endian offsets; it was read as 1.9 million characters of UTF-16.
    const symbols = Buffer.alloc(16_000);
    for (let i = 0; i < symbols.length; i += 4) symbols.set([0x00, 0x03, 0x75, 0x90], i);
    const objects = Buffer.alloc(300_000);
    for (let i = 0; i < objects.length; i += 64) objects.set([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01], i);
    const member = Buffer.from(`${'/'.padEnd(16)}${'0'.padEnd(12)}${'0'.padEnd(6)}${'0'.padEnd(6)}${'0'.padEnd(8)}${String(symbols.length).padEnd(10)}\u0060\n`, 'latin1');
    await writeFile(at('librt.a'), Buffer.concat([Buffer.from('!<arch>\n', 'latin1'), member, symbols, objects]));
    await writeFile(at('table.txt'), Buffer.concat([symbols, objects]));
    const library = expectOk(await parseFile(at('librt.a'), OPTIONS));
    expect(library.text).to.equal('');
    expect([library.format, library.mime]).to.deep.equal(['archive', 'application/x-archive']);
    const table = expectOk(await parseFile(at('table.txt'), OPTIONS));
    expect(table.text).to.equal('');
    expect(table.format).to.equal('binary');
  });

  it("reads an Outlook MSG's 8-bit strings in the code page it names (Big5), not cp1252", async () => {
    await writeFile(at('big5.msg'), big5Msg());
    const doc = expectOk(await parseFile(at('big5.msg'), OPTIONS));
    expect(doc.format).to.equal('msg');
    expect(doc.text).to.include('會議紀錄');
    expect(doc.text).to.include('明天下午三點開會');
  });

  it('reads a DOCX written by a streaming zip writer (entries with data descriptors)', async () => {
    await writeFile(at('streamed.docx'), docx('<w:p><w:r><w:t>Written by a streaming zip writer.</w:t></w:r></w:p>', { dataDescriptors: true }));
    const doc = expectOk(await parseFile(at('streamed.docx'), OPTIONS));
    expect(doc.format).to.equal('docx');
    expect(doc.text).to.include('Written by a streaming zip writer.');
  });

  it('recognises mail without an extension whose headers run past 4 KB', async () => {
    const mail = longHeaderMail();
    expect(mail.indexOf('\r\n\r\n')).to.be.greaterThan(4096);
    await writeFile(at('mail-long-headers'), mail);
    const doc = expectOk(await parseFile(at('mail-long-headers'), OPTIONS));
    expect(doc.format).to.equal('email');
    expect(doc.metadata.title ?? doc.text).to.include('Quarterly torture report');
  });

  it('keeps a file holding a private key out, whatever its name, with the reason', async () => {
    await writeFile(at('server_key.txt'), `Production key, do not share:\n${PEM_KEY}\n`);
    const outcome = await parseFile(at('server_key.txt'), OPTIONS);
    if (outcome.ok) expect.fail('a private key was parsed as a document');
    expect(outcome.code).to.equal('contains_secret');
    expect(outcome.reason).to.match(/private key block/);
    expect(outcome.facts?.path).to.equal(at('server_key.txt'));
  });

  it('never reads through a link, even to a file the user could index', async () => {
    await writeFile(at('real.txt'), 'the real text');
    await symlink(at('real.txt'), at('alias.txt'));
    const outcome = await parseFile(at('alias.txt'), OPTIONS);
    if (outcome.ok) expect.fail(`a link was followed: ${outcome.doc.text}`);
    expect(outcome.code).to.equal('not_a_file');
  });
});
