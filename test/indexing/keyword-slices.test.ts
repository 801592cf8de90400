/**
 * A long text through the real service: its keyword index is written in slices (store/keyword/slices.ts) and,
 * once the run has settled, it is whole: nothing pending, and a word from its very end is found by keyword search.
 */
import { expect } from 'chai';
import { forEachEngine } from '../helpers/engines.js';
import { tempTree, type TempTree } from '../helpers/files.js';
import { startTestService, type TestService } from '../helpers/service.js';

const WORDS = ['granite', 'meadow', 'lantern', 'harbour', 'orchard', 'thistle', 'quarry', 'willow'];

forEachEngine('a long text indexed in slices', (engine) => {
  let tree: TempTree;
  let t: TestService;

  before(async () => {
    // ~700,000 characters: ~44 pieces of 16,000 bytes, three slices and the postings.
    const words = Array.from({ length: 90_000 }, (_, i) => `${WORDS[i % WORDS.length]}${i % 97}`);
    tree = await tempTree({ 'long.txt': `${words.join(' ')} quillwort`, 'short.txt': 'a short note about granite' });
    t = await startTestService(engine);
    t.service.indexing.startDirectory(tree.root, { kind: 'directory', force: false });
    await t.service.indexing.settled();
  });
  after(async () => {
    await t.destroy();
    await tree.remove();
  });

  it('is whole once the run has settled: nothing pending, its last word found', async () => {
    expect(await t.service.store.api.search.pendingKeywords()).to.deep.equal([]);
    const res = await t.request('POST', '/api/search/', { query: 'quillwort', directory: tree.root, mode: 'keyword', limit: 10 });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    const results = res.body.results as { file: { filename: string } }[];
    expect(results.map((r) => r.file.filename)).to.deep.equal(['long.txt']);
  });
});
