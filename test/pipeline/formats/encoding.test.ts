import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import iconv from 'iconv-lite';
import { decodeBytes, detectEncodings, looksLikeText, strictUtf8Decode, utf16WithoutBom } from '../../../src/pipeline/formats/encoding.js';
import { sharedPath } from '../../helpers/shared.js';

describe('decodeBytes', () => {
  it('decodes only the opening of long UTF-8 when asked for that many characters, still checking all of it', () => {
    // Characters of one to four bytes, across the megabyte pieces it decodes.
    const text = 'aé€😀 word '.repeat(400_000);
    const bytes = Buffer.from(text, 'utf8');
    for (const maxChars of [1, 1_000_000, 2_500_001]) {
      const opening = strictUtf8Decode(bytes, maxChars)!;
      expect(opening.length).to.be.at.least(maxChars).and.below(text.length);
      expect(text.startsWith(opening)).to.equal(true);
    }
    expect(strictUtf8Decode(bytes, text.length + 5)).to.equal(text);
    expect(decodeBytes(bytes, undefined, { maxChars: 10 })).to.deep.include({ encoding: 'utf-8' });
    // One byte that is not UTF-8 at the very end: not UTF-8, with or without a limit.
    const spoiled = Buffer.concat([bytes, Buffer.from([0xff])]);
    expect(strictUtf8Decode(spoiled, 10)).to.equal(undefined);
    // Detection then decodes it whole, as without a limit (not an opening cut at ten characters).
    const detected = decodeBytes(spoiled);
    expect(detected.text.length).to.be.above(text.length - 10);
    expect(decodeBytes(spoiled, undefined, { maxChars: 10 })).to.deep.equal(detected);
  });

  it('strips a UTF-8 BOM', () => {
    expect(decodeBytes(Buffer.from('\uFEFFhello', 'utf8'))).to.deep.equal({ text: 'hello', encoding: 'utf-8' });
  });

  it('honours UTF-16 and UTF-32 byte-order marks', () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('añb', 'utf16le')]);
    expect(decodeBytes(le)).to.deep.equal({ text: 'añb', encoding: 'utf-16le' });
    const be32 = Buffer.concat([Buffer.from([0, 0, 0xfe, 0xff]), iconv.encode('x€', 'utf32-be')]);
    expect(decodeBytes(be32).text).to.equal('x€');
  });

  it('prefers the encoding a document declares over detection', () => {
    const arabic = iconv.encode('الاتحاد الجزائري', 'iso-8859-6');
    expect(decodeBytes(arabic, 'iso-8859-6')).to.deep.equal({ text: 'الاتحاد الجزائري', encoding: 'iso-8859-6' });
  });

  it('ignores a declared UTF-16 without BOM and an unknown label', () => {
    expect(decodeBytes(Buffer.from('plain'), 'utf-16').text).to.equal('plain');
    expect(decodeBytes(Buffer.from('plain'), 'no-such-charset').text).to.equal('plain');
  });

  it('does not trust a UTF-8 declaration on bytes that are not UTF-8', () => {
    // Statistical detection needs a sentence or two of real language to be sure.
    const french =
      "Le cœur de la ville était animé: les cafés débordaient, les élèves révisaient leurs leçons près de la fenêtre, et le garçon de café apportait des crêpes brûlantes. À côté, une vieille dame achetait des pêches mûres au marché, tandis que les touristes prenaient des photos de la façade de l'église.";
    const decoded = decodeBytes(iconv.encode(french, 'windows-1252'), 'utf-8');
    expect(decoded.text).to.equal(french);
    expect(decoded.encoding).to.equal('windows-1252');
  });

  it('detects DOS Cyrillic (cp866) and EBCDIC (cp500) in the dataset', () => {
    const russian = decodeBytes(readFileSync(sharedPath('datasets', 'formats', 'txt', 'russian.cp866.txt')));
    expect(russian.encoding).to.equal('ibm866');
    expect(russian.text).to.include('Однажды, в студеную зимнюю пору');
    const ebcdic = decodeBytes(readFileSync(sharedPath('datasets', 'formats', 'txt', 'english.cp500.txt')));
    expect(ebcdic.encoding).to.equal('cp500');
    expect(ebcdic.text).to.include('IBM System p Redbooks');
  });

  it('detects GBK Chinese', () => {
    const text = '中华人民共和国是工人阶级领导的、以工农联盟为基础的人民民主专政的社会主义国家。社会主义制度是中华人民共和国的根本制度。';
    const decoded = decodeBytes(iconv.encode(text, 'gbk'));
    expect(decoded.text).to.equal(text);
    expect(decoded.encoding).to.match(/gb/);
  });
});

describe('detectEncodings', () => {
  it('guesses as jschardet does and keeps no copy of it loaded (its models hold 23 MB)', async () => {
    const cyrillic = iconv.encode('Съешь же ещё этих мягких французских булок, да выпей чаю. '.repeat(20), 'koi8-r');
    const { detectAll } = await import('jschardet');
    const guesses = detectEncodings(cyrillic);
    expect(guesses).to.deep.equal(detectAll(cyrillic));
    expect(guesses[0]?.encoding).to.equal('KOI8-R');
    const load = createRequire(import.meta.url);
    expect(load.cache[load.resolve('jschardet')]).to.equal(undefined);
  });
});

describe('utf16WithoutBom', () => {
  it('recognises BOM-less UTF-16 of either byte order, and not short binary', () => {
    expect(utf16WithoutBom(Buffer.from('Some ordinary text here', 'utf16le'))).to.equal('utf-16le');
    expect(utf16WithoutBom(iconv.encode('Some ordinary text here', 'utf-16be'))).to.equal('utf-16be');
    expect(utf16WithoutBom(Buffer.from('Some ordinary text here'))).to.equal(undefined);
    expect(utf16WithoutBom(Buffer.from([0, 1, 0, 2]))).to.equal(undefined);
  });
});

describe('looksLikeText', () => {
  it('accepts text in any encoding and rejects binary', () => {
    expect(looksLikeText(Buffer.from('tab\tnewline\nescape\u001b[0m'))).to.equal(true);
    expect(looksLikeText(iconv.encode('Привет', 'cp866'))).to.equal(true);
    expect(looksLikeText(Buffer.from('utf-16 text is text', 'utf16le'))).to.equal(true);
    expect(looksLikeText(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00]))).to.equal(false);
    expect(looksLikeText(Buffer.from([1, 2, 3, 4, 5, 6, 7, 8, 65, 66]))).to.equal(false);
  });

  it('draws the line at 5 % control characters, leaving out tab, newlines, form feed, SUB and ESC', () => {
    const window = (controls: number[], letters: number): Buffer => Buffer.concat([Buffer.from(controls), Buffer.alloc(letters, 0x61)]);
    // 4 in 100 and 5 in 101 are under 5 %; 5 in 100 is not.
    expect(looksLikeText(window([1, 2, 3, 4], 96))).to.equal(true);
    expect(looksLikeText(window([1, 2, 3, 4, 5], 96))).to.equal(true);
    expect(looksLikeText(window([1, 2, 3, 4, 5], 95))).to.equal(false);
    // Those that text holds count for nothing, however many; one NUL is binary.
    expect(looksLikeText(window([9, 10, 11, 12, 13, 26, 27, 9, 10, 27], 10))).to.equal(true);
    expect(looksLikeText(window([0], 1000))).to.equal(false);
    expect(looksLikeText(window([31, 8, 14, 28, 29, 30], 10))).to.equal(false);
  });

  it("reads UTF-16 by its code units through the whole file, not by its opening's NUL pattern alone", () => {
    const latin = 'The osprey census counts every nest on the estuary. ';
    const mixed = `${latin.repeat(200)}${'鱼鹰巢穴调查覆盖整个河口。'.repeat(2000)}${latin.repeat(200)}`;
    expect(looksLikeText(Buffer.from(mixed, 'utf16le'))).to.equal(true);
    expect(looksLikeText(Buffer.concat([Buffer.from([0xfe, 0xff]), iconv.encode(mixed, 'utf-16be')]))).to.equal(true);
    // An opening that shows UTF-16's pattern (an ar symbol table's big-endian offsets: 00 03 75 90 ...), then a
    // body of object code and zero padding: binary, wherever the body starts.
    const offsets = Buffer.alloc(12_000);
    for (let i = 0; i < offsets.length; i += 4) offsets.set([0x00, 0x03, 0x75, 0x90], i);
    expect(utf16WithoutBom(offsets)).to.equal('utf-16be');
    const body = Buffer.alloc(200_000);
    for (let i = 0; i < body.length; i += 64) body.set([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01], i);
    expect(looksLikeText(Buffer.concat([offsets, body]))).to.equal(false);
    expect(looksLikeText(Buffer.concat([Buffer.from(latin.repeat(400), 'utf16le'), body]))).to.equal(false);
    // A NUL code unit in the opening alone is enough: UTF-16 text has none.
    expect(looksLikeText(Buffer.concat([Buffer.from(latin.repeat(20), 'utf16le'), Buffer.alloc(8), Buffer.from(latin.repeat(20), 'utf16le')]))).to.equal(false);
  });
});
