import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Tokenizer as ReferenceTokenizer } from 'tokenizers';
import { WordPieceTokenizer } from '../../../src/pipeline/embedders/wordpiece.js';
import { sharedPath } from '../../helpers/shared.js';

const tokenizerDir = (): string => sharedPath('models', 'all-MiniLM-L6-v2-tokenizer');

/** Texts that exercise every normaliser and pre-tokeniser rule (accents, CJK, controls, symbols, long words). */
const TRICKY = [
  'Café naïve façade résumé Ångström ÉCOLE',
  'İstanbul ΟΔΟΣ straße ﬁnance Ǆ',
  '東京は日本の首都です。北京欢迎你 한국어 テスト',
  'tabs\tand\nnewlines\r\nand\u00a0nbsp\u2003em-space',
  'zero\u0000width\u200bjoiner\u200dand\ufeffbom soft\u00adhyphen \ufffdreplacement',
  '$100 + 5% <tag> a^b `code` a|b ~tilde @user #hash &amp; x=y_z',
  '“quotes” ‘single’ — dash – en … ellipsis «guillemets» ¿qué? ¡sí!',
  'e.g. i.e. U.S.A. 3.14159 1,000,000 10^-6 α-synuclein β2-microglobulin IL-6/STAT3',
  'a'.repeat(100) + ' ' + 'b'.repeat(101) + ' ' + 'é'.repeat(101),
  'supercalifragilisticexpialidocious antidisestablishmentarianism pneumonoultramicroscopicsilicovolcanoconiosis',
  'emoji 😀 🧬 👩‍🔬 flags 🇩🇪 math 𝐀𝐁𝐂 ∑∫√ ℃ ℕ',
  'combining e\u0301 standalone \u0301 mark; arabic مرحبا hebrew שלום devanagari नमस्ते thai สวัสดี',
  '',
  '   ',
  '...!!!???',
];

describe('WordPieceTokenizer', () => {
  let tok: WordPieceTokenizer;
  let reference: ReferenceTokenizer;

  before(() => {
    tok = WordPieceTokenizer.fromVocabFile(path.join(tokenizerDir(), 'vocab.txt'));
    reference = ReferenceTokenizer.fromFile(path.join(tokenizerDir(), 'tokenizer.json'));
    reference.disableTruncation();
    reference.disablePadding();
  });

  it('reads the 30522-entry vocabulary and its special tokens', () => {
    expect(tok.vocabSize).to.equal(30522);
    expect([tok.padId, tok.unkId, tok.clsId, tok.sepId]).to.deep.equal([0, 100, 101, 102]);
  });

  it('reproduces the ids listed in SOURCE.md', () => {
    expect(tok.encode('A man is eating food.')).to.deep.equal([101, 1037, 2158, 2003, 5983, 2833, 1012, 102]);
    expect(tok.encode('A man is eating a piece of bread.')).to.deep.equal([
      101, 1037, 2158, 2003, 5983, 1037, 3538, 1997, 7852, 1012, 102,
    ]);
    expect(tok.encode('A man is riding a horse.')).to.deep.equal([101, 1037, 2158, 2003, 5559, 1037, 3586, 1012, 102]);
    expect(tok.encode('A monkey is playing drums.')).to.deep.equal([101, 1037, 10608, 2003, 2652, 3846, 1012, 102]);
  });

  it('matches the Hugging Face reference tokenizer on tricky text', async () => {
    for (const text of TRICKY) {
      const expected = (await reference.encode(text)).getIds();
      expect(tok.encode(text, 100_000), JSON.stringify(text)).to.deep.equal(expected);
    }
  });

  it('matches the Hugging Face reference tokenizer on 300 SciFact documents', async () => {
    const lines = readFileSync(sharedPath('datasets', 'scifact', 'corpus.jsonl'), 'utf8').split('\n');
    const docs = lines
      .filter((l) => l.trim() !== '')
      .filter((_, i) => i % 17 === 0)
      .slice(0, 300)
      .map((l) => JSON.parse(l) as { title: string; text: string });
    expect(docs).to.have.length(300);
    for (const d of docs) {
      const text = `${d.title}\n\n${d.text}`;
      const expected = (await reference.encode(text)).getIds();
      expect(tok.encode(text, 100_000)).to.deep.equal(expected);
    }
  });

  it('maps words over 100 characters to a single [UNK]', () => {
    expect(tok.tokenize('a'.repeat(101))).to.deep.equal([tok.unkId]);
    expect(tok.tokenize('a'.repeat(100))).to.not.include(tok.unkId);
  });

  it('gives each word its span in the original text', () => {
    const text = 'Café, İstanbul!  東京';
    const words = tok.words(text);
    expect(words.map((w) => text.slice(w.start, w.end))).to.deep.equal(['Café', ',', 'İstanbul', '!', '東', '京']);
  });

  it('truncates encode() to maxLength including [CLS] and [SEP]', () => {
    const ids = tok.encode('word '.repeat(300), 256);
    expect(ids).to.have.length(256);
    expect(ids[0]).to.equal(tok.clsId);
    expect(ids[255]).to.equal(tok.sepId);
  });

  describe('from tokenizer.json', () => {
    let fromJson: WordPieceTokenizer;
    before(() => {
      fromJson = WordPieceTokenizer.fromTokenizerJson(path.join(tokenizerDir(), 'tokenizer.json'));
    });

    it('reads the vocabulary, the special tokens and the normaliser settings', () => {
      expect(fromJson.vocabSize).to.equal(30522);
      expect([fromJson.padId, fromJson.unkId, fromJson.clsId, fromJson.sepId]).to.deep.equal([0, 100, 101, 102]);
    });

    it('matches the Hugging Face reference tokenizer on tricky text and SciFact', async () => {
      const lines = readFileSync(sharedPath('datasets', 'scifact', 'corpus.jsonl'), 'utf8').split('\n');
      const docs = lines.filter((l) => l.trim() !== '').filter((_, i) => i % 61 === 0).slice(0, 60);
      const texts = [...TRICKY, ...docs.map((l) => { const d = JSON.parse(l) as { title: string; text: string }; return `${d.title}\n\n${d.text}`; })];
      for (const text of texts) {
        expect(fromJson.encode(text, 100_000), JSON.stringify(text.slice(0, 40))).to.deep.equal((await reference.encode(text)).getIds());
      }
    });

    it('refuses a tokenizer it would get wrong, naming what it found', () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'filesift-tokenizer-'));
      try {
        const json = JSON.parse(readFileSync(path.join(tokenizerDir(), 'tokenizer.json'), 'utf8')) as Record<string, unknown>;
        const bpe = path.join(dir, 'bpe.json');
        writeFileSync(bpe, JSON.stringify({ ...json, model: { type: 'BPE', vocab: {}, merges: [] } }));
        expect(() => WordPieceTokenizer.fromTokenizerJson(bpe)).to.throw(/only WordPiece tokenizers are supported \(model type BPE\)/);
        const nfc = path.join(dir, 'nfc.json');
        writeFileSync(nfc, JSON.stringify({ ...json, normalizer: { type: 'NFC' } }));
        expect(() => WordPieceTokenizer.fromTokenizerJson(nfc)).to.throw(/BertNormalizer.*normalizer NFC/);
        const meta = path.join(dir, 'metaspace.json');
        writeFileSync(meta, JSON.stringify({ ...json, pre_tokenizer: { type: 'Metaspace' } }));
        expect(() => WordPieceTokenizer.fromTokenizerJson(meta)).to.throw(/pre_tokenizer Metaspace/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
