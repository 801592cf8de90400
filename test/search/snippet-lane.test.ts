/**
 * Snippets and preview highlights are cut on the snippet lane's thread (issue 16: a search whose snippet met a
 * 19,000-character word once held the main thread for 6 s). Held on purpose, the lane keeps a search and a preview
 * waiting while the main thread goes on answering; released, they answer what the in-thread functions cut.
 */
import { expect } from 'chai';
import { eventually } from '../helpers/assert.js';
import { forEachEngine } from '../helpers/engines.js';
import { tempTree, type TempTree } from '../helpers/files.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { buildSnippet, highlightWords, TermMatcher } from '../../src/search/snippet.js';
import { SnippetLane } from '../../src/search/snippet-lane.js';
import { collectGarbage } from '../../src/lib/collect-garbage.js';

forEachEngine('snippet lane: snippets off the main thread', (engine) => {
  let t: TestService;
  let tree: TempTree;
  const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `word${(i * seed) % 997}`).join(' ');

  before(async () => {
    t = await startTestService(engine);
    const files: Record<string, string> = {};
    // Long texts, the query's word deep inside, and words at the 64-character cap.
    for (let i = 0; i < 20; i++) files[`big-${i}.txt`] = `${words(2000, i + 3)} ${'x'.repeat(200)} lighthouse keepers ${words(1000, i + 7)} lighthouse`;
    tree = await tempTree(files);
    await t.request('POST', '/api/index/directory', { directory_path: tree.root });
    await t.service.indexing.settled();
  });
  after(async () => {
    await tree.remove();
    await t.destroy();
  });

  it('keeps the main thread answering while snippets are cut, and answers what the in-thread cut gives', async () => {
    const release = await t.service.snippets.hold();
    let answered = false;
    const searching = t.request('POST', '/api/search/', { query: 'lighthouse', mode: 'keyword', limit: 50 }).then((res) => {
      answered = true;
      return res;
    });
    await eventually(() => t.service.snippets.waiting > 1); // the hold, and the search's snippets behind it
    const files = (await t.request('GET', '/api/files/stats')).status;
    const status = await t.request('GET', '/api/queue/status');
    expect([files, status.status]).to.deep.equal([200, 200]);
    expect(answered, 'the search waits for the held snippet thread').to.equal(false);
    release();
    const res = await searching;
    expect(res.status).to.equal(200);
    const results = res.body.results as { file: { id: number }; snippet: string; highlights: [number, number][] }[];
    expect(results).to.have.length(20);
    const lexemes = await t.service.store.api.search.lexemes('lighthouse');
    const matcher = new TermMatcher(lexemes);
    for (const result of results) {
      const page = await t.service.store.api.files.content(result.file.id, 0, 20_000);
      const expected = buildSnippet(page!.text, matcher);
      expect({ snippet: result.snippet, highlights: result.highlights }).to.deep.equal({ snippet: expected.text, highlights: expected.highlights });
      expect(result.snippet).to.include('lighthouse');
    }
  });

  it("finds a preview's highlights on the lane: held, the preview waits; released, it answers the in-thread ranges", async () => {
    const search = await t.request('POST', '/api/search/', { query: 'lighthouse', mode: 'keyword', limit: 1 });
    const id = (search.body.results as { file: { id: number } }[])[0]!.file.id;
    const release = await t.service.snippets.hold();
    let answered = false;
    const previewing = t.request('GET', `/api/files/${id}/content?q=lighthouse`).then((res) => {
      answered = true;
      return res;
    });
    await eventually(() => t.service.snippets.waiting > 1);
    expect((await t.request('GET', '/api/queue/status')).status).to.equal(200);
    expect(answered, 'the preview waits for the held snippet thread').to.equal(false);
    release();
    const res = await previewing;
    expect(res.status).to.equal(200);
    const matcher = new TermMatcher(await t.service.store.api.search.lexemes('lighthouse'));
    expect(res.body.highlights).to.deep.equal(highlightWords(res.body.text as string, matcher));
    expect((res.body.highlights as unknown[]).length).to.equal(2);
  });

  it('ends the snippet and query-embedder threads after a while without searches; the next search starts them and answers the same', async () => {
    // A service of its own whose lanes end 300 ms after their last use.
    const idle = await startTestService(engine, {}, undefined, { laneIdleMs: 300 });
    try {
      await idle.request('POST', '/api/index/directory', { directory_path: tree.root });
      await idle.service.indexing.settled();
      expect([idle.service.snippets.started, idle.service.models.queryLaneStarted], 'nothing searched yet').to.deep.equal([false, false]);
      const search = () => idle.request('POST', '/api/search/', { query: 'lighthouse keepers', mode: 'hybrid', limit: 10 });
      const first = await search();
      expect(first.status).to.equal(200);
      expect(first.body.results).to.have.length(10);
      expect(first.body.notice, 'semantic side answered').to.equal(null);
      expect((first.body.results as { cosine: number | null }[])[0]!.cosine).to.be.a('number');
      expect([idle.service.snippets.starts, idle.service.models.queryLaneStarts]).to.deep.equal([1, 1]);
      await eventually(() => !idle.service.snippets.started && !idle.service.models.queryLaneStarted);
      const again = await search();
      expect(again.status).to.equal(200);
      expect([idle.service.snippets.starts, idle.service.models.queryLaneStarts], 'started again by the search').to.deep.equal([2, 2]);
      expect(again.body.notice).to.equal(null);
      const view = (r: typeof first) => (r.body.results as { file: { id: number }; snippet: string; relevance_score: number }[]).map((x) => [x.file.id, x.snippet, x.relevance_score]);
      expect(view(again)).to.deep.equal(view(first));
    } finally {
      await idle.destroy();
    }
  });
});

describe('snippet lane: what its calls leave behind', () => {
  it("keeps no call's answer once the caller drops it, while the thread lives on", async () => {
    // Each call once raced the thread's life-long "ended" promise, whose reactions held every answer until the
    // thread ended: with searches coming more often than the lane's idle timeout, memory grew without bound.
    const lane = SnippetLane.start();
    try {
      const text = `${'plain words here '.repeat(200)} lighthouse keepers`;
      const answers: WeakRef<object>[] = [];
      // In a function of its own: a suspended async function keeps its dead locals (the last answer) alive.
      const search = async (): Promise<WeakRef<object>> => {
        const cut = await lane.snippets([{ text, summary: '' }], ['lighthous']);
        expect(cut[0]!.highlights.length).to.be.greaterThan(0);
        return new WeakRef(cut);
      };
      for (let i = 0; i < 20; i++) answers.push(await search());
      expect(lane.started, 'the thread is still running').to.equal(true);
      await new Promise((resolve) => setImmediate(resolve)); // a WeakRef keeps its target until the job ends
      collectGarbage();
      expect(answers.flatMap((a, i) => (a.deref() === undefined ? [] : [i])), 'answers still held').to.deep.equal([]);
    } finally {
      await lane.close();
    }
  });

  it('rejects a call waiting on a thread that ends, and makes it again on a new thread', async () => {
    const lane = SnippetLane.start();
    try {
      await lane.snippets([{ text: 'warm up', summary: '' }], []);
      const crashed = lane.crash();
      // Sent after the exit: the first thread never answers it; its end does, and the call goes to a new thread.
      const waiting = lane.snippets([{ text: 'lighthouse keepers', summary: '' }], ['lighthous']);
      await crashed;
      const cut = await waiting;
      expect(cut[0]!.highlights).to.deep.equal([[0, 10]]);
      expect(lane.starts).to.equal(2);
      expect(lane.waiting).to.equal(0);
    } finally {
      await lane.close();
    }
  });
});
