import { expect } from 'chai';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkSciFact, loadQueries } from '../../../bench/lib/scifact.js';
import { sharedPath } from '../../helpers/shared.js';

describe('checkSciFact', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'filesift-shared-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('names every missing part and where the data should be', async () => {
    const dir = path.join(root, 'datasets', 'scifact');
    await mkdir(path.join(dir, 'files'), { recursive: true });
    await writeFile(path.join(dir, 'queries.jsonl'), '');
    const check = checkSciFact(root);
    expect(check.ok).to.equal(false);
    if (check.ok) return;
    for (const part of ['qrels.tsv', 'queries-train.jsonl', 'qrels-train.tsv']) expect(check.reason).to.include(path.join(dir, part));
    expect(check.reason).to.not.include(path.join(dir, 'files'));
    expect(check.reason).to.include('FILESIFT_SHARED_DIR');
  });

  it('answers the files folder when everything is there', async () => {
    const dir = path.join(root, 'datasets', 'scifact');
    await mkdir(path.join(dir, 'files'), { recursive: true });
    for (const f of ['queries.jsonl', 'qrels.tsv', 'queries-train.jsonl', 'qrels-train.tsv']) await writeFile(path.join(dir, f), '');
    expect(checkSciFact(root)).to.deep.equal({ ok: true, files: path.join(dir, 'files') });
  });

  it('finds the shared data beside the repository', () => {
    expect(checkSciFact()).to.deep.equal({ ok: true, files: sharedPath('datasets', 'scifact', 'files') });
  });
});

describe('loadQueries', () => {
  it('loads the judged queries of each split (BEIR: 300 test, 809 train)', () => {
    const test = loadQueries('test');
    expect(test.queries).to.have.length(300);
    expect(loadQueries('train').queries).to.have.length(809);
    expect(test.queries.every((q) => (test.qrels.get(q.id)?.size ?? 0) > 0)).to.equal(true);
  });
});
