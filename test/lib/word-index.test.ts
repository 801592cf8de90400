import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { WordIndex } from '../../src/lib/word-index.js';

describe('WordIndex', () => {
  /** The temp folders this suite made, removed after it. */
  const dirs: string[] = [];
  const tempDir = (): string => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'filesift-words-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

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

  it('looks up an ASCII span of a text as its lower case, without the strings', () => {
    const words = new WordIndex('[PAD]\nthe\nof\nt-cell\nil-6\nx9\n');
    const text = 'The OF, T-Cell; IL-6 x9 X9z Thee';
    const spans = [...text.matchAll(/[A-Za-z0-9-]+/g)].map((m) => [m.index, m.index + m[0].length] as const);
    for (const [start, end] of spans) {
      const word = text.slice(start, end);
      expect(words.lineOfLowerAscii(text, start, end), word).to.equal(words.lineOf(word.toLowerCase()));
    }
    expect(spans.map(([start, end]) => words.lineOfLowerAscii(text, start, end))).to.deep.equal([1, 2, 3, 4, 5, -1, -1]);
    expect(words.lineOfLowerAscii(text, 0, 2), 'a part of a word').to.equal(-1);
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

  it('is sent to another thread as shared memory: the index built from it answers the same', async () => {
    const words = new WordIndex('[PAD]\nthe\nof\ncafé\nthe\nt-cell\n');
    const shared = words.shared();
    for (const array of [shared.codes, shared.starts, shared.table]) expect(array.buffer).to.be.instanceOf(SharedArrayBuffer);
    const { Worker } = await import('node:worker_threads');
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       workerData.codes[0] = 0x7b; // a write the sender sees: the same memory, not a copy
       parentPort.postMessage(workerData.codes.length);`,
      { eval: true, workerData: shared },
    );
    const length = await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
    await worker.terminate();
    expect(length).to.equal(shared.codes.length);
    expect(String.fromCharCode(shared.codes[0]!)).to.equal('{');
    shared.codes[0] = '['.charCodeAt(0);
    const copy = new WordIndex(shared);
    for (const w of ['the', 'of', 'café', 't-cell', '[PAD]', 'cell', '']) expect(copy.lineOf(w), w).to.equal(words.lineOf(w));
    expect([copy.lines, copy.distinct, copy.line(3)]).to.deep.equal([6, 5, 'café']);
  });

  it('lets a thread adopt an index built elsewhere for a file it has not read', () => {
    const dir = tempDir();
    const file = path.join(dir, 'vocab.txt');
    writeFileSync(file, '[PAD]\nalpha\nbeta\n');
    WordIndex.adopt(file, new WordIndex('[PAD]\ngamma\n').shared());
    expect(WordIndex.fromFile(file).lineOf('gamma')).to.equal(1); // the adopted one, not the file
    const read = path.join(dir, 'read.txt');
    writeFileSync(read, '[PAD]\nalpha\n');
    const first = WordIndex.fromFile(read);
    WordIndex.adopt(read, new WordIndex('[PAD]\ngamma\n').shared());
    expect(WordIndex.fromFile(read)).to.equal(first); // a thread keeps the index it has
  });

  it('reads a file once per path: its readers share one index', () => {
    const file = path.join(tempDir(), 'vocab.txt');
    writeFileSync(file, '[PAD]\nalpha\nbeta\n');
    const a = WordIndex.fromFile(file);
    expect(WordIndex.fromFile(file)).to.equal(a);
    expect(a.lineOf('beta')).to.equal(2);
  });
});
