import { expect } from 'chai';
import { spawnStore, type StoreHandle } from '../../src/actors/store/index.js';
import { AppError } from '../../src/errors.js';
import { createLogger } from '../../src/logger.js';
import { SearchService } from '../../src/search/search.service.js';
import { SettingsService } from '../../src/settings/settings.service.js';
import { expectRejection } from '../helpers/assert.js';

const logger = createLogger('silent');

describe('SearchService without an embedding model', () => {
  let store: StoreHandle;
  let service: SearchService;
  before(async () => {
    store = await spawnStore({ databaseUrl: null, dataDir: null, logger });
    const settings = await SettingsService.load(store.api.config, logger);
    service = new SearchService({
      store: store.api,
      settings,
      logger,
      embedder: async () => ({ embedder: null, reason: 'no model is installed' }),
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
  after(() => store.close());

  it('answers keyword-only hybrid searches and says so', async () => {
    const res = await service.search({ query: 'lighthouse keeper' });
    expect(res.mode).to.equal('keyword');
    expect(res.notice).to.match(/semantic search is unavailable \(no model is installed\)/);
    expect(res.results.map((r) => r.file.file_path)).to.deep.equal(['/docs/lighthouse.txt']);
    expect(res.results[0]!.semantic_score).to.equal(0);
    expect(res.results[0]!.cosine).to.equal(null);
  });

  it('refuses an explicitly semantic search with 503 and the reason', async () => {
    const err = await expectRejection(service.search({ query: 'lighthouse', mode: 'semantic' }), AppError);
    expect((err as AppError).status).to.equal(503);
    expect(err.message).to.match(/no model is installed/);
  });
});
