import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WordIndex } from '../../src/lib/word-index.js';

describe('WordIndex', () => {
  it('answers the first line holding a word, -1 for a word it lacks', () => {
    const words = new WordIndex('[PAD]\nthe\nof\ncafé\nthe\nt-cell\n');
    expect(words.lines).to.equal(6);
    expect(words.distinct).to.equal(5);
    expect(words.lineOf('the')).to.equal(1);
    expect(words.lineOf('café')).to.equal(3);
    expect(words.lineOf('t-cell')).to.equal(5);
    expect(words.lineOf('[PAD]')).to.equal(0);
    for (const missing of ['', 'th', 'thee', 'cafe', 'cell', 'T-cell']) expect(words.lineOf(missing), missing).to.equal(-1);
    expect(words.line(3)).to.equal('café');
    expect(() => words.line(6)).to.throw(RangeError);
  });

  it('reads a last line without a final newline, and an empty list', () => {
    expect(new WordIndex('a\nb').lines).to.equal(2);
    expect(new WordIndex('a\nb').lineOf('b')).to.equal(1);
    const none = new WordIndex('');
    expect([none.lines, none.lineOf('a')]).to.deep.equal([0, -1]);
  });

  it('finds every word of a large list where a Map would (colliding hashes included)', () => {
    const list = Array.from({ length: 50_000 }, (_, i) => `w${(i * 7919) % 50_000}x${i % 13}`);
    const words = new WordIndex(list.join('\n'));
    const first = new Map<string, number>();
    list.forEach((w, i) => first.has(w) || first.set(w, i));
    expect(words.distinct).to.equal(first.size);
    for (const [w, i] of first) if (words.lineOf(w) !== i) expect.fail(`${w}: ${words.lineOf(w)} instead of ${i}`);
    expect(words.lineOf('w1x2y')).to.equal(-1);
  });

  it('reads a file once per path: its readers share one index', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'filesift-words-')), 'vocab.txt');
    writeFileSync(file, '[PAD]\nalpha\nbeta\n');
    const a = WordIndex.fromFile(file);
    expect(WordIndex.fromFile(file)).to.equal(a);
    expect(a.lineOf('beta')).to.equal(2);
  });
});
