import { expect } from 'chai';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { MAX_ARCHIVE_BYTES, MAX_DEPTH, MAX_MEMBERS_READ } from '../../../src/pipeline/formats/archive.js';
import { extractDocument } from '../../../src/pipeline/formats/index.js';
import { isTar } from '../../../src/pipeline/formats/tar.js';
import { parseFile, type ParseOptions } from '../../../src/pipeline/stages/parse.js';
import type { ParsedDocument } from '../../../src/pipeline/types.js';
import { tempTree, type TempTree } from '../../helpers/files.js';
import { docx, nestedZip, writePdf } from '../../helpers/torture-files.js';
import { write7z } from '../../helpers/sevenzip-writer.js';
import { writeTar, writeTarGzBomb, writeTarWithSizedDirectory } from '../../helpers/tar-writer.js';
import { writeZip } from '../../helpers/zip-writer.js';

const OPTIONS: ParseOptions = { maxFileBytes: 50_000_000, maxTextChars: 100_000 };
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(2000, 0x17)]);

async function parsed(file: string, options: ParseOptions = OPTIONS): Promise<ParsedDocument> {
  const outcome = await parseFile(file, options);
  if (!outcome.ok) throw new Error(`${outcome.code}: ${outcome.reason}`);
  return outcome.doc;
}

describe('archive members', () => {
  let tree: TempTree;
  before(async () => {
    tree = await tempTree();
    await writePdf(tree.path('report.pdf'), 2);
    const pdf = await readFile(tree.path('report.pdf'));
    const inner = writeZip([{ name: 'deeper/minutes.txt', data: 'The harbour committee approved the lighthouse budget.' }]);
    await tree.write(
      'bundle.zip',
      writeZip([
        { name: 'docs/plan.txt', data: 'Quarterly plan: migrate the albatross cluster before winter.' },
        { name: 'docs/letter.docx', data: docx('<w:p><w:r><w:t>Dear committee, the pelican survey is complete.</w:t></w:r></w:p>') },
        { name: 'scans/report.pdf', data: pdf },
        { name: 'photos/cover.png', data: PNG },
        { name: 'logs/notes.txt.gz', data: gzipSync('Compressed member mentions the cormorant colony.') },
        { name: 'inner.zip', data: inner },
        { name: 'empty-dir/', data: '' },
      ]),
    );
    const tarEntries = [
      { name: 'src/readme.md', data: '# Kestrel\nThe kestrel module parses flight logs.' },
      { name: 'src/data.bin', data: PNG },
      { name: '../../etc/passwd', data: 'root:x:0:0:hostile traversal name' },
    ];
    const tarBytes = await writeTar(tarEntries);
    await tree.write('project.tar', tarBytes);
    await tree.write('project.tgz', gzipSync(tarBytes));
    await tree.write('project.tar.gz', gzipSync(tarBytes));
    await tree.write('mixed.zip', writeZip([
      { name: 'open.txt', data: 'Anyone may read the osprey census.' },
      { name: 'secret.txt', data: Buffer.alloc(64, 0x5a), encrypted: true, deflate: false },
    ]));
    await tree.write('nest4.zip', nestedZip(4, 'The word flamingo sits four archives down.'));
    await tree.write('nest2.zip', nestedZip(2, 'The word heron sits two archives down.'));
  });
  after(() => tree.remove());

  it("reads a ZIP's members by their formats, each introduced by its path", async () => {
    const doc = await parsed(tree.path('bundle.zip'));
    expect(doc.format).to.equal('zip');
    for (const phrase of [
      '[docs/plan.txt]\nQuarterly plan: migrate the albatross cluster before winter.',
      '[docs/letter.docx]\nDear committee, the pelican survey is complete.',
      '[scans/report.pdf]',
      'torture survivor',
      '[logs/notes.txt.gz]\nCompressed member mentions the cormorant colony.',
      '[inner.zip/deeper/minutes.txt]\nThe harbour committee approved the lighthouse budget.',
    ]) {
      expect(doc.text).to.contain(phrase);
    }
    // A picture gives its name only; a directory is not a member.
    expect(doc.text).to.contain('[photos/cover.png]\n\n');
    expect(doc.text).not.to.contain('empty-dir');
    expect(doc.textTruncated).to.equal(false);
    expect(doc.metadata).to.include({ members: 6, membersRead: 5, membersSkipped: 0, membersCut: 0, encryptedMembers: 0 });
    expect(doc.note).to.equal('archive: 6 members, 5 read as text');
  });

  for (const name of ['project.tar', 'project.tgz', 'project.tar.gz']) {
    it(`reads the members of ${name}; a traversal name is only text and nothing is written`, async () => {
      const before = await readdir(tree.root, { recursive: true });
      const doc = await parsed(tree.path(name));
      expect(doc.format).to.equal('tar');
      expect(doc.text).to.contain('[src/readme.md]\nKestrel\n\nThe kestrel module parses flight logs.');
      expect(doc.text).to.contain('[src/data.bin]');
      expect(doc.text).to.contain('[../../etc/passwd]\nroot:x:0:0:hostile traversal name');
      expect(doc.metadata).to.include({ members: 3, membersRead: 2 });
      if (name !== 'project.tar') expect(doc.metadata.compression).to.equal('gzip');
      expect(await readdir(tree.root, { recursive: true })).to.deep.equal(before);
    });
  }

  it('knows a tar by its header checksum, not by its name', () => {
    expect(isTar(Buffer.alloc(1024))).to.equal(false);
    expect(isTar(Buffer.from('plain text '.repeat(100)))).to.equal(false);
  });

  it('lists an encrypted member by name only, and the note says so', async () => {
    const doc = await parsed(tree.path('mixed.zip'));
    expect(doc.text).to.equal('[open.txt]\nAnyone may read the osprey census.\n\n[secret.txt]');
    expect(doc.metadata).to.include({ members: 2, membersRead: 1, encryptedMembers: 1 });
    expect(doc.note).to.equal('archive: 2 members, 1 read as text; 1 encrypted (name only)');
    expect(doc.textTruncated).to.equal(false);
  });

  it(`opens archives nested ${MAX_DEPTH} deep, not deeper: the rest is text_truncated with the reason`, async () => {
    const two = await parsed(tree.path('nest2.zip'));
    expect(two.text).to.contain('[level2.zip/bottom.txt]\nThe word heron sits two archives down.');
    const four = await parsed(tree.path('nest4.zip'));
    expect(four.text).not.to.contain('flamingo');
    expect(four.text).to.contain('[level2.zip/level3.zip]');
    expect(four.textTruncated).to.equal(true);
    expect(four.note).to.match(new RegExp(`archive nested more than ${MAX_DEPTH} deep: not opened`));
  });

  describe('bombs end text_truncated, in bounded time and memory', function () {
    this.timeout(120_000);

    it('a ZIP of ten 12 MB archives stops at the byte budget shared by every level', async () => {
      const big = writeZip([{ name: 'filler.bin', data: Buffer.alloc(12 * 1024 * 1024), deflate: false }]);
      const file = await tree.write('byte-bomb.zip', writeZip(Array.from({ length: 10 }, (_, i) => ({ name: `part${i}.zip`, data: big }))));
      const doc = await parsed(file, { ...OPTIONS, maxTextChars: 2_000_000 });
      expect(doc.textTruncated).to.equal(true);
      expect(doc.metadata).to.include({ members: 10, membersSkipped: 5 });
      expect(doc.note).to.contain(`not read: byte limit (${MAX_ARCHIVE_BYTES / 1024 / 1024} MB decompressed) reached`);
      expect(doc.text).to.contain('[part9.zip]');
    });

    it('a ZIP whose members inflate to 200 MB each is read in part, never inflated whole', async () => {
      const member = Buffer.alloc(200 * 1024 * 1024, 'z');
      const file = await tree.write('zip-bomb.zip', writeZip([{ name: 'a.txt', data: member }, { name: 'b.txt', data: member }]));
      const doc = await parsed(file);
      expect(doc.textTruncated).to.equal(true);
      expect(doc.text.length).to.be.at.most(OPTIONS.maxTextChars);
      expect(doc.text.startsWith('[a.txt]\nzzzz')).to.equal(true);
      expect(doc.note).to.match(/a\.txt read in part/);
      // The first member's text stops short of the limit: the names of the others still fit.
      expect(doc.text).to.contain('[b.txt]');
    });

    it(`a ZIP of ${(MAX_MEMBERS_READ * 3).toLocaleString('en')} small members reads ${MAX_MEMBERS_READ.toLocaleString('en')} and lists the rest by name`, async () => {
      const file = await tree.write('many.zip', writeZip(Array.from({ length: MAX_MEMBERS_READ * 3 }, (_, i) => ({ name: `m${i}.txt`, data: `word${i}` }))));
      const doc = await parsed(file, { ...OPTIONS, maxTextChars: 1_000_000 });
      expect(doc.metadata).to.include({ members: MAX_MEMBERS_READ * 3, membersRead: MAX_MEMBERS_READ, membersSkipped: MAX_MEMBERS_READ * 2 });
      expect(doc.text).to.contain(`[m${MAX_MEMBERS_READ - 1}.txt]\nword${MAX_MEMBERS_READ - 1}`);
      expect(doc.text).to.contain(`[m${MAX_MEMBERS_READ * 3 - 1}.txt]`);
      expect(doc.text).not.to.contain(`word${MAX_MEMBERS_READ * 3 - 1}`);
      expect(doc.textTruncated).to.equal(true);
      expect(doc.note).to.contain(`${(MAX_MEMBERS_READ * 2).toLocaleString('en')} not read: member limit (${MAX_MEMBERS_READ.toLocaleString('en')} read) reached`);
    });

    it('a .tar.gz holding one 300 MB member is decompressed only as far as the budget', async () => {
      const file = tree.path('tar-bomb.tar.gz');
      await writeTarGzBomb(file, 'huge.log', 300 * 1024 * 1024, 'q');
      const doc = await parsed(file);
      expect(doc.format).to.equal('tar');
      expect(doc.textTruncated).to.equal(true);
      expect(doc.text.startsWith('[huge.log]\nqqqq')).to.equal(true);
      expect(doc.text.length).to.be.at.most(OPTIONS.maxTextChars);
    });

    it('a member past the deadline is listed by name only, with the reason', async () => {
      const bytes = await readFile(tree.path('bundle.zip'));
      const result = await extractDocument({ bytes, extension: 'zip', maxTextChars: 100_000, deadline: Date.now() - 1 });
      if (!result.ok) throw new Error(result.reason);
      expect(result.truncated).to.equal(true);
      expect(result.text).to.contain('[docs/plan.txt]');
      expect(result.text).not.to.contain('albatross');
      expect(result.note).to.contain('6 not read: time limit reached');
    });

    it('a tar that breaks off inside a member keeps what came before', async () => {
      const bytes = await writeTar([
        { name: 'first.txt', data: 'The first member is whole.' },
        { name: 'second.txt', data: 'x'.repeat(5000) },
      ]);
      const file = tree.path('cut.tar');
      await writeFile(file, bytes.subarray(0, 1024 + 512 + 1024));
      const doc = await parsed(file);
      expect(doc.text).to.contain('[first.txt]\nThe first member is whole.');
      expect(doc.textTruncated).to.equal(true);
      expect(doc.note).to.match(/the archive ends early, after 2 members/);
    });
  });

  it('reads past a directory header that gives a size (CPython\'s testtar.tar held a thread until its timeout)', async () => {
    const file = await tree.write(
      'sized-directory.tar',
      await writeTarWithSizedDirectory('ustar/dirtype-with-size/', 255, [{ name: 'ustar/after.txt', data: 'The member after the directory mentions the grebe.' }]),
    );
    const doc = await parsed(file);
    expect(doc.text).to.contain('[ustar/after.txt]');
    expect(doc.text).to.contain('grebe');
  });

  it('says why a RAR archive is indexed by name only', async () => {
    const file = await tree.write('photos.rar', Buffer.concat([Buffer.from('526172211a0700', 'hex'), Buffer.alloc(200, 1)]));
    const doc = await parsed(file);
    expect(doc).to.include({ format: 'archive', text: '', mime: 'application/x-rar-compressed' });
    expect(doc.note).to.equal('archive (application/x-rar-compressed): members not read, indexed by name only');
  });

  describe('7z (7z-wasm, in memory)', function () {
    this.timeout(120_000);

    it('reads the members of a solid and a non-solid 7z by their formats', async () => {
      const entries = [
        { name: 'docs/plan.txt', data: 'Quarterly plan: migrate the albatross cluster before winter.' },
        { name: 'docs/letter.docx', data: docx('<w:p><w:r><w:t>Dear committee, the pelican survey is complete.</w:t></w:r></w:p>') },
        { name: 'photos/cover.png', data: PNG },
      ];
      for (const solid of [true, false]) {
        const doc = await parsed(await tree.write(`bundle-${solid}.7z`, await write7z(entries, { solid })));
        expect(doc.format).to.equal('7z');
        expect(doc.text).to.contain('[docs/plan.txt]\nQuarterly plan: migrate the albatross cluster before winter.');
        expect(doc.text).to.contain('[docs/letter.docx]\nDear committee, the pelican survey is complete.');
        expect(doc.text).to.contain('[photos/cover.png]');
        expect(doc.metadata).to.include({ members: 3, membersRead: 2, membersSkipped: 0 });
      }
    });

    it('lists encrypted members by name only, and fails an archive whose very names are encrypted', async () => {
      const entries = [{ name: 'secret.txt', data: 'The vault code is heliotrope.' }];
      const members = await parsed(await tree.write('locked.7z', await write7z(entries, { password: 'pw' })));
      expect(members.text).to.equal('[secret.txt]');
      expect(members.metadata).to.include({ members: 1, encryptedMembers: 1 });
      const names = await parseFile(await tree.write('locked-names.7z', await write7z(entries, { password: 'pw', encryptNames: true })), OPTIONS);
      expect(names).to.deep.include({ ok: false, code: 'encrypted' });
    });

    it('a solid 7z bomb: members past the byte budget are never decoded, listed by name with the reason', async () => {
      const file = await tree.write(
        'bomb.7z',
        await write7z([
          { name: 'a-first.txt', data: 'The first member is read.' },
          { name: 'b-huge.txt', data: Buffer.alloc(80 * 1024 * 1024, 'h') },
          { name: 'c-after.txt', data: 'Reaching this member means decoding 80 MB first.' },
        ]),
      );
      const doc = await parsed(file);
      expect(doc.text).to.contain('[a-first.txt]\nThe first member is read.');
      expect(doc.text).not.to.contain('Reaching this member');
      expect(doc.textTruncated).to.equal(true);
      expect(doc.metadata).to.include({ members: 3, membersRead: 1, membersSkipped: 2 });
      expect(doc.note).to.contain('not read: over the member size limit (16 MB)');
      expect(doc.note).to.contain('not read: byte limit (7z: members past');
    });

    it("records a damaged 7z as corrupt, leaving the process's exit code alone", async () => {
      const exitCode = process.exitCode;
      const outcome = await parseFile(await tree.write('junk.7z', Buffer.concat([Buffer.from('377abcaf271c0004', 'hex'), Buffer.alloc(200, 1)])), OPTIONS);
      expect(outcome).to.deep.include({ ok: false, code: 'corrupt' });
      expect(process.exitCode).to.equal(exitCode);
    });
  });
});
