import { expect } from 'chai';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { listFiles } from '../../../bench/lib/files.js';
import { seededRandom, syntheticDocs, writeSyntheticTree } from '../../../bench/lib/synthetic.js';

const SOURCES = ['alpha beta gamma delta epsilon zeta', 'one two three four five six seven eight'];

describe('seededRandom', () => {
  it('repeats its sequence for a seed and stays in [0, 1)', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const xs = Array.from({ length: 50 }, () => a());
    expect(Array.from({ length: 50 }, () => b())).to.deep.equal(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).to.equal(true);
    expect(seededRandom(8)()).to.not.equal(xs[0]);
  });
});

describe('syntheticDocs', () => {
  it('draws words of the sources only, a title line then the body', () => {
    const vocabulary = new Set(SOURCES.join(' ').split(' '));
    const docs = [...syntheticDocs(SOURCES, 20, 3)];
    expect(docs).to.have.length(20);
    for (const d of docs) {
      expect(d.text.startsWith(`${d.title}\n\n`)).to.equal(true);
      expect(d.text.split(/\s+/).every((w) => vocabulary.has(w))).to.equal(true);
    }
    expect([...syntheticDocs(SOURCES, 20, 3)]).to.deep.equal(docs);
  });

  it('topical documents draw most words from one source; uniform ones from all alike', () => {
    // Two disjoint vocabularies: a topical document lives mostly in its topic's, a uniform one in both evenly.
    const share = (kind: 'topical' | 'uniform'): number => {
      const alpha = new Set(SOURCES[0]!.split(' '));
      let sum = 0;
      const docs = [...syntheticDocs(SOURCES, 200, 9, kind)];
      for (const d of docs) {
        const words = d.text.split(/\s+/);
        const inAlpha = words.filter((w) => alpha.has(w)).length / words.length;
        sum += Math.max(inAlpha, 1 - inAlpha);
      }
      return sum / docs.length;
    };
    expect(share('topical')).to.be.above(0.7);
    expect(share('uniform')).to.be.below(0.7);
  });

  it('refuses empty sources', () => {
    expect(() => [...syntheticDocs(['  '], 1)]).to.throw(/non-empty sources/);
  });
});

describe('writeSyntheticTree', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'filesift-synthetic-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const countFiles = async (dir: string) => (await listFiles(dir)).length;

  it('writes count files, 1,000 a folder, the marker outside the indexed folder', async () => {
    const tree = await writeSyntheticTree(root, SOURCES, 1500, 5);
    expect(tree).to.deep.equal({ files: path.join(root, 'files'), count: 1500, written: true });
    expect((await readdir(tree.files)).sort()).to.deep.equal(['0', '1']);
    expect(await countFiles(tree.files)).to.equal(1500);
    const first = [...syntheticDocs(SOURCES, 1, 5)][0]!;
    expect(await readFile(path.join(tree.files, '0', '0.txt'), 'utf8')).to.equal(first.text);
    expect(await readdir(root)).to.have.members(['files', 'complete.json']);
  });

  it('reuses a finished tree of the same seed and kind holding at least the count asked, and rewrites otherwise', async () => {
    await writeSyntheticTree(root, SOURCES, 30, 5);
    const before = (await stat(path.join(root, 'files', '0', '0.txt'))).mtimeMs;
    const again = await writeSyntheticTree(root, SOURCES, 30, 5);
    expect(again.written).to.equal(false);
    expect((await stat(path.join(root, 'files', '0', '0.txt'))).mtimeMs).to.equal(before);

    // A smaller tree is a prefix of the larger one: it is read from it, the larger tree stays whole.
    const smaller = await writeSyntheticTree(root, SOURCES, 12, 5);
    expect(smaller).to.include({ count: 12, written: false });
    expect(await countFiles(smaller.files)).to.equal(30);
    const docs = [...syntheticDocs(SOURCES, 12, 5)];
    expect(await readFile(path.join(smaller.files, '0', '11.txt'), 'utf8')).to.equal(docs[11]!.text);

    const larger = await writeSyntheticTree(root, SOURCES, 40, 5);
    expect(larger.written).to.equal(true);
    expect(await countFiles(larger.files)).to.equal(40);

    const otherSeed = await writeSyntheticTree(root, SOURCES, 12, 6);
    expect(otherSeed.written).to.equal(true);
    expect(await countFiles(otherSeed.files)).to.equal(12);

    const uniform = await writeSyntheticTree(root, SOURCES, 12, 6, 'uniform');
    expect(uniform.written).to.equal(true);
    expect(await readFile(path.join(uniform.files, '0', '0.txt'), 'utf8')).to.equal([...syntheticDocs(SOURCES, 1, 6, 'uniform')][0]!.text);
  });
});
