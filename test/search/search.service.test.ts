import { expect } from 'chai';
import { spawnStore, type StoreHandle } from '../../src/store/spawn.js';
import { createLogger } from '../../src/logger.js';
import { SearchService } from '../../src/search/search.service.js';
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
});
