import { expect } from 'chai';
import { spawnStore, type StoreHandle } from '../../src/store/spawn.js';
import { createLogger } from '../../src/logger.js';
import { SearchCancelled, SearchService } from '../../src/search/search.service.js';
import { SnippetLane } from '../../src/search/snippet-lane.js';
import { SettingsService } from '../../src/settings/settings.service.js';
import { EventBus } from '../../src/events/bus.js';

const logger = createLogger('silent');

describe('SearchService without an embedding model', () => {
  let store: StoreHandle;
  let service: SearchService;
  let snippets: SnippetLane;
  before(async () => {
    snippets = SnippetLane.start();
    store = await spawnStore({ databaseUrl: null, dataDir: null, logger });
    const settings = await SettingsService.load(store.api.config, logger, new EventBus());
    service = new SearchService({
      store: store.api,
      settings,
      logger,
      embedder: async () => ({ embedder: null, reason: 'no model is installed' }),
      snippets,
    });
    const now = new Date().toISOString();
    const facts = { path: '/docs/lighthouse.txt', filename: 'lighthouse.txt', extension: 'txt', size: 40, created: now, modified: now, accessed: now };
    await store.api.files.saveIndexed({
      facts,
      mtimeMs: Date.parse(now),
      jobId: null,
      contentHash: 'h1',
      format: 'text',
      mime: 'text/plain',
      text: 'The lighthouse keeper climbed the stairs.',
      textTruncated: false,
      metadata: {},
      note: null,
      analysis: { title: 'Lighthouse', summary: 'A keeper climbs.', keywords: ['lighthouse'], provider: 'local' },
      embeddingModel: '',
      chunks: [],
    });
  });
  after(async () => {
    await snippets.close();
    await store.close();
  });

  it('answers keyword-only hybrid searches and says so', async () => {
    const outcome = await service.search({ query: 'lighthouse keeper', filters: {} });
    if (!outcome.ok) throw new Error(outcome.reason);
    const res = outcome.response;
    expect(res.mode).to.equal('keyword');
    expect(res.notice).to.match(/semantic search is unavailable \(no model is installed\)/);
    expect(res.results.map((r) => r.file.file_path)).to.deep.equal(['/docs/lighthouse.txt']);
    expect(res.results[0]!.semantic_score).to.equal(0);
    expect(res.results[0]!.cosine).to.equal(null);
  });

  it('answers an explicitly semantic search with the reason it is unavailable', async () => {
    const outcome = await service.search({ query: 'lighthouse', filters: {}, mode: 'semantic' });
    expect(outcome).to.deep.include({ ok: false, code: 'semantic_unavailable' });
    expect(!outcome.ok && outcome.reason).to.match(/no model is installed/);
  });

  it('answers a query with nothing to search for with the reason', async () => {
    const outcome = await service.search({ query: '-draft', filters: {} });
    expect(outcome).to.deep.include({ ok: false, code: 'no_search_terms' });
  });

  it('answers identical searches asked at the same time with one search, and searches again afterwards', async () => {
    let calls = 0;
    const counting = new SearchService({
      store: { ...store.api, search: { ...store.api.search, keyword: (...args) => (calls++, store.api.search.keyword(...args)) } },
      settings: await SettingsService.load(store.api.config, logger, new EventBus()),
      logger,
      embedder: async () => ({ embedder: null, reason: 'no model is installed' }),
      snippets,
    });
    const request = { query: 'lighthouse stairs', filters: {}, mode: 'keyword' as const };
    const answers = await Promise.all([counting.search(request), counting.search({ ...request }), counting.search({ ...request, limit: 5 })]);
    expect(calls).to.equal(2); // the two identical requests shared one search; the one with another limit did not
    expect(answers[1]).to.equal(answers[0]);
    expect(answers.every((a) => a.ok && a.response.results.length === 1)).to.equal(true);
    await counting.search(request);
    expect(calls).to.equal(3);
  });

  describe('a search whose requests all went away', () => {
    /** The real store, its typo step held until `release()`, its keyword step counted. */
    function gatedService() {
      let release = (): void => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      let reached = (): void => undefined;
      const atGate = new Promise<void>((resolve) => (reached = resolve));
      const counts = { corrections: 0, keyword: 0 };
      const search = {
        ...store.api.search,
        corrections: async (text: string) => {
          counts.corrections++;
          reached();
          await held;
          return store.api.search.corrections(text);
        },
        keyword: (...args: Parameters<typeof store.api.search.keyword>) => (counts.keyword++, store.api.search.keyword(...args)),
      };
      return {
        counts,
        atGate,
        release: () => release(),
        make: async () =>
          new SearchService({
            store: { ...store.api, search },
            settings: await SettingsService.load(store.api.config, logger, new EventBus()),
            logger,
            embedder: async () => ({ embedder: null, reason: 'no model is installed' }),
            snippets,
          }),
      };
    }
    const request = { query: 'lighthouse stairs', filters: {}, mode: 'keyword' as const };

    it('stops before its next step and answers SearchCancelled; the same request afterwards searches again', async () => {
      const gate = gatedService();
      const service = await gate.make();
      const closed = new AbortController();
      const answer = service.search(request, closed.signal);
      await gate.atGate;
      closed.abort();
      gate.release();
      const error = await answer.then(
        () => null,
        (err: unknown) => err,
      );
      expect(error).to.be.instanceOf(SearchCancelled);
      expect(gate.counts.keyword).to.equal(0);
      const again = await service.search(request, new AbortController().signal);
      expect(again.ok && again.response.results.map((r) => r.file.file_path)).to.deep.equal(['/docs/lighthouse.txt']);
      expect(gate.counts.keyword).to.equal(1);
    });

    it('goes on while one request sharing it is still open, and a request without a signal keeps it for good', async () => {
      const gate = gatedService();
      const service = await gate.make();
      const [first, second] = [new AbortController(), new AbortController()];
      const answers = [service.search(request, first.signal), service.search({ ...request }, second.signal), service.search({ ...request })];
      await gate.atGate;
      first.abort();
      second.abort(); // the third, with no signal, still waits
      gate.release();
      const outcomes = await Promise.all(answers);
      expect(outcomes.every((o) => o.ok && o.response.results.length === 1)).to.equal(true);
      expect(gate.counts.keyword).to.equal(1);
    });

    it('answers a request whose signal is already aborted with SearchCancelled, without a step', async () => {
      const gate = gatedService();
      const service = await gate.make();
      gate.release();
      const error = await service.search(request, AbortSignal.abort()).then(
        () => null,
        (err: unknown) => err,
      );
      expect(error).to.be.instanceOf(SearchCancelled);
      expect(gate.counts).to.deep.equal({ corrections: 0, keyword: 0 });
    });
  });
});
