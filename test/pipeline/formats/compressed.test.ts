import { expect } from 'chai';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { compressionOf, innerExtension } from '../../../src/pipeline/formats/compressed.js';
import { parseFile } from '../../../src/pipeline/stages/parse.js';
import { tempTree, type TempTree } from '../../helpers/files.js';
import { writePdf } from '../../helpers/torture-files.js';

const SENTENCE = 'The lighthouse keeper logs every passing vessel in the harbour register.';

// Made with the stock tools (bzip2, xz, zstd) from SENTENCE + '\n'; the bombs from runs of 'a': 4 MB (xz, zstd) and
// 1 GB (bzip2) once decompressed.
const MADE_BY_TOOLS: Record<string, string> = {
  's.txt.bz2': 'QlpoOTFBWSZTWTVlgxEAAAZTgAAQQAEEADLt3yAgAEiJ6JoANDQiHoRoANDaeATON4OmeIdQyJVeuWr9l6MuDTRuhzBUJfbNCeLiVDYgjBZ3JRv4u5IpwoSBqywYiA==',
  's.txt.xz': '/Td6WFoAAATm1rRGAgAhARYAAAB0L+WjAQBIVGhlIGxpZ2h0aG91c2Uga2VlcGVyIGxvZ3MgZXZlcnkgcGFzc2luZyB2ZXNzZWwgaW4gdGhlIGhhcmJvdXIgcmVnaXN0ZXIuCgAAAACGgPNHif8k1gABYUn5FmBTH7bzfQEAAAAABFla',
  's.txt.zst': 'KLUv/SRJ9QEAkoQOFMA1BwBEiMTeonEpjWhAFSBAGHwDQJA+v3I2URlyWG2n5Ir+nVrk/mFapJP7Kti0sYn6qNixOqxNCAAAf7xM',
  'bomb.xz': '/Td6WFoAAATm1rRGAgAhARwAAAAQz1jM//8RAWxdADDv+7/+o7Fe5fg/sqomVfhocEFwFQ+N/R5MG4pCtxn0aRhxrmYjiopNL6MN2X+m44wjEVPgWRjFdYrid/i2lH8MasDedElk4ulcU7IE2PdEDKtfDW1G6eXDdoi3llestk3haR1v+0uIEGxCy4g/XACP0E6vJiiUcR89jyThcJ6nI1/sKMuF0ZWYin4qkfIndfcZwAaYTZj92K/VkA/EJVP49ZE2MQWlsO5vwXBNRwzRkRGqrWAdus6xJxhcWYbpZlJYvul2rFnk5VsFCPnH2q38+1IrdM0eWyBC+d1TPfgpZAk7gMsqbN+1O/DEvS5fqg8+S2ZCkBMO/xCT+HF4WfgLzf+VKEYPqfx83vuaMC5WwI+F84OBwGXEJVP49ZE2MQWlsO5vwXBNRwzRkRGqrWAdus6xJxhcWYbpZlJYvul2rFnk5VsFCPnH2q38+1IrdM0eWyBC+d1TPfgpZAk7gMsqbN+1O/DEvEgn5lidCe0BEQDsc1On/b6ufDEan7eNMW5wnqcjX+woy4XRlZiKfiqR8id19xnABphNmP3Yr9WQD8QlU/j1kTYxBaWw7m/BcE1HDNGREaqtYB26zrEnGFxZhulmUli+6XasWeTlWwUI+cfarfz7Uit0zR5bIEL53VM9+ClkCTuAyyps37U78MS9Ll+qDz5LZkKQEw7/EJP4cXhZ+AvN/5UoRg+p/Hze+5owLlbAj4Xzg4HAZcQlU/j1kTYxBaWw7m/BcE1HDNGREaqtYB26zrEnGFxZhulmUli+6XasWeTlWwUI+cfarfz7Uit0zR5bIEL53VM9+ClkCTuAyyps37U78MS9Ll+qDz5LZkKQEw7/EJP4cXhZ5Z9yRQAAAL+k7OEsZ12xAAGfBYCS9AGxMZzzscRn+wIAAAAABFla',
  'bomb.zst': 'KLUv/QRoTAAACGEBAPz/ORACAgAQYQIAEGECABBhAgAQYQIAEGECABBhAgAQYQIAEGECABBhAgAQYQIAEGECABBhAgAQYQIAEGECABBhAgAQYQIAEGECABBhAgAQYQIAEGECABBhAgAQYQIAEGECABBhAgAQYQIAEGECABBhAgAQYQIAEGEDSAhhzEjJMQ==',
  'bomb.bz2': 'QlpoOTFBWSZTWcJtKvMBX44BAKAAAAggADCATUZCoCWpCoCXMUFZJlNZwm0q8wFfjgEAoAAACCAAMIBNRkKgJakKgJcxQVkmU1nCbSrzAV+OAQCgAAAIIAAwgE1GQqAlqQqAlzFBWSZTWcJtKvMBX44BAKAAAAggADCATUZCoCWpCoCXMUFZJlNZwm0q8wFfjgEAoAAACCAAMIBNRkKgJakKgJcxQVkmU1nCbSrzAV+OAQCgAAAIIAAwgE1GQqAlqQqAlzFBWSZTWcJtKvMBX44BAKAAAAggADCATUZCoCWpCoCXMUFZJlNZwm0q8wFfjgEAoAAACCAAMIBNRkKgJakKgJcxQVkmU1nCbSrzAV+OAQCgAAAIIAAwgE1GQqAlqQqAlzFBWSZTWcJtKvMBX44BAKAAAAggADCATUZCoCWpCoCXMUFZJlNZwm0q8wFfjgEAoAAACCAAMIBNRkKgJakKgJcxQVkmU1nCbSrzAV+OAQCgAAAIIAAwgE1GQqAlqQqAlzFBWSZTWcJtKvMBX44BAKAAAAggADCATUZCoCWpCoCXMUFZJlNZwm0q8wFfjgEAoAAACCAAMIBNRkKgJakKgJcxQVkmU1nCbSrzAV+OAQCgAAAIIAAwgE1GQqAlqQqAlzFBWSZTWcJtKvMBX44BAKAAAAggADCATUZCoCWpCoCXMUFZJlNZwm0q8wFfjgEAoAAACCAAMIBNRkKgJakKgJcxQVkmU1nCbSrzAV+OAQCgAAAIIAAwgE1GQqAlqQqAlzFBWSZTWcJtKvMBX44BAKAAAAggADCATUZCoCWpCoCXMUFZJlNZwm0q8wFfjgEAoAAACCAAMIBNRkKgJakKgJcxQVkmU1nCbSrzAV+OAQCgAAAIIAAwgE1GQqAlqQqAlzFBWSZTWV8BeygBFJ+BIKAAAAQACCAAMMwFKaaqoiQ2AJEh4u5IpwoSFuMYKYA=',
};

const OPTIONS = { maxFileBytes: 10_000_000, maxTextChars: 100_000 };

describe('single-file compression', () => {
  let tree: TempTree;
  before(async () => {
    tree = await tempTree({
      ...Object.fromEntries(Object.entries(MADE_BY_TOOLS).map(([name, b64]) => [name, Buffer.from(b64, 'base64')])),
      's.txt.gz': gzipSync(SENTENCE + '\n'),
      'notes.gz': gzipSync(SENTENCE + '\n'),
      'bomb.gz': gzipSync(Buffer.alloc(5_000_000, 'a')),
      'junk.gz': Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0xff]), Buffer.alloc(300, 7)]),
      'cut.txt.xz': Buffer.from(MADE_BY_TOOLS['s.txt.xz']!, 'base64').subarray(0, 50),
    });
    await writePdf(tree.path('report.pdf'), 3);
    await writeFile(tree.path('report.pdf.gz'), gzipSync(await readFile(tree.path('report.pdf'))));
  });
  after(() => tree.remove());

  it('knows each compression by its magic bytes, and the inner extension by the name without the suffix', () => {
    expect(compressionOf(gzipSync('x'))).to.equal('gzip');
    expect(compressionOf(Buffer.from(MADE_BY_TOOLS['s.txt.bz2']!, 'base64'))).to.equal('bzip2');
    expect(compressionOf(Buffer.from(MADE_BY_TOOLS['s.txt.xz']!, 'base64'))).to.equal('xz');
    expect(compressionOf(Buffer.from(MADE_BY_TOOLS['s.txt.zst']!, 'base64'))).to.equal('zstd');
    expect(compressionOf(Buffer.from('plain text'))).to.equal(null);
    expect(innerExtension('report.pdf.gz', 'gzip')).to.equal('pdf');
    expect(innerExtension('notes.gz', 'gzip')).to.equal('');
    expect(innerExtension('odd.txt.gz', 'xz')).to.equal('');
  });

  for (const name of ['s.txt.gz', 's.txt.bz2', 's.txt.xz', 's.txt.zst', 'notes.gz']) {
    it(`reads ${name} as the text inside`, async () => {
      const outcome = await parseFile(tree.path(name), OPTIONS);
      if (!outcome.ok) throw new Error(outcome.reason);
      expect(outcome.doc).to.include({ format: 'text', text: SENTENCE, textTruncated: false, extension: name.split('.').at(-1) });
      expect(outcome.doc.metadata.compression).to.be.a('string');
    });
  }

  it('reads a compressed PDF as a PDF', async () => {
    const outcome = await parseFile(tree.path('report.pdf.gz'), OPTIONS);
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.doc.format).to.equal('pdf');
    expect(outcome.doc.text).to.contain('torture survivor');
  });

  it('indexes a compressed container too big once decompressed by name only, with the reason', async () => {
    // The limit lets the compressed file in, not the PDF it holds.
    const { size } = await stat(tree.path('report.pdf.gz'));
    expect((await stat(tree.path('report.pdf'))).size).to.be.above(size);
    const outcome = await parseFile(tree.path('report.pdf.gz'), { ...OPTIONS, maxFileBytes: size });
    if (!outcome.ok) throw new Error(outcome.reason);
    expect(outcome.doc).to.include({ format: 'pdf', text: '', note: 'over size limit once decompressed (gzip)' });
  });

  for (const name of ['bomb.gz', 'bomb.bz2', 'bomb.xz', 'bomb.zst']) {
    it(`cuts the decompression bomb ${name} at the text limit: text_truncated, never the whole output`, async () => {
      const outcome = await parseFile(tree.path(name), OPTIONS);
      if (!outcome.ok) throw new Error(outcome.reason);
      expect(outcome.doc.textTruncated).to.equal(true);
      expect(outcome.doc.text.length).to.equal(OPTIONS.maxTextChars);
    });
  }

  for (const name of ['junk.gz', 'cut.txt.xz']) {
    it(`records the damaged ${name} as corrupt, naming the compression`, async () => {
      const outcome = await parseFile(tree.path(name), OPTIONS);
      expect(outcome.ok).to.equal(false);
      if (outcome.ok) return;
      expect(outcome.code).to.equal('corrupt');
      expect(outcome.reason).to.match(/could not be decompressed/);
    });
  }
});
