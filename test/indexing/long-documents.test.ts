import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { DEFAULT_MAX_CHUNKS } from '../../src/pipeline/embedders/static.js';
import { forEachEngine } from '../helpers/engines.js';
import { tempTree, type TempTree } from '../helpers/files.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { sharedPath } from '../helpers/shared.js';
import { readKnownUnder } from '../../src/store/repositories/known-under.js';

/** SciFact abstracts (real text): the first PARTS make one long document, the next ones are files of their own. */
const PARTS = 80;
const OTHERS = 40;
const abstracts = readFileSync(sharedPath('datasets', 'scifact', 'corpus.jsonl'), 'utf8')
  .split('\n')
  .slice(0, PARTS + OTHERS)
  .map((line) => JSON.parse(line) as { title: string; text: string });
const last = abstracts[PARTS - 1]!;

interface Result {
  file: { filename: string; chunk_count: number };
  snippet: string;
  highlights: [number, number][];
}

forEachEngine('a long document in the index', (engine) => {
  let tree: TempTree;
  let t: TestService;

  before(async () => {
    const files: Record<string, string> = {
      'long.txt': abstracts
        .slice(0, PARTS)
        .map((a) => `${a.title}\n\n${a.text}`)
        .join('\n\n'),
    };
    abstracts.slice(PARTS).forEach((a, i) => (files[`other-${i}.txt`] = `${a.title}\n\n${a.text}`));
    tree = await tempTree(files);
    t = await startTestService(engine);
    t.service.indexing.startDirectory(tree.root, { kind: 'directory', force: false });
    await t.service.indexing.settled();
  });
  after(async () => {
    await t.destroy();
    await tree.remove();
  });

  async function searchFor(query: string, mode: string): Promise<Result[]> {
    const res = await t.request('POST', '/api/search/', { query, directory: tree.root, mode, limit: 10 });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.results as Result[];
  }

  it(`gets at most ${DEFAULT_MAX_CHUNKS} vectors, where 96-word chunks would be many more`, async () => {
    const words = abstracts.slice(0, PARTS).reduce((n, a) => n + `${a.title} ${a.text}`.split(/\s+/).length, 0);
    expect(words / 96).to.be.above(DEFAULT_MAX_CHUNKS * 3);
    const known = await readKnownUnder(t.service.store.api.files, tree.root);
    const long = known.find((k) => k.path.endsWith('long.txt'))!;
    const record = (await t.service.store.api.files.get(long.id)) as unknown as { chunk_count: number; status: string };
    expect(record.status).to.equal('indexed');
    expect(record.chunk_count).to.be.within(DEFAULT_MAX_CHUNKS - 2, DEFAULT_MAX_CHUNKS);
  });

  it('finds its last passage by a semantic search, with a snippet of that passage', async () => {
    const results = await searchFor(last.title, 'semantic');
    const names = results.map((r) => r.file.filename);
    // First, above the abstracts on nearby topics: a vector covers the passage (with only the first 32 96-word
    // chunks, long.txt ranked third, by a chunk about something else).
    expect(names[0], JSON.stringify(names)).to.equal('long.txt');
    const [hybridTop] = await searchFor(last.title, 'hybrid');
    expect(hybridTop!.file.filename).to.equal('long.txt');
    // The snippet is cut around the query's words wherever they are in the text, not from a chunk.
    expect(hybridTop!.highlights.length).to.be.above(0);
    const shown = hybridTop!.highlights.map(([s, e]) => hybridTop!.snippet.slice(s, e).toLowerCase());
    expect(last.title.toLowerCase()).to.include(shown[0]!);
  });
});
