import { expect } from 'chai';
import { utimes } from 'node:fs/promises';
import { eventually } from '../../helpers/assert.js';
import { forEachEngine } from '../../helpers/engines.js';
import { tempTree, type TempTree } from '../../helpers/files.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { MAX_EXCLUDED } from '../../../src/search/query-parser.js';

interface Bucket {
  value: string;
  label: string;
  count: number;
  bound?: string;
}

interface Result {
  file: Record<string, unknown> & { file_path: string; filename: string };
  relevance_score: number;
  semantic_score: number;
  keyword_score: number;
  filename_match: string | null;
  snippet: string;
  highlights: [number, number][];
}

forEachEngine('POST /api/search/', (engine) => {
  let t: TestService;
  let tree: TempTree;

  before(async () => {
    t = await startTestService(engine);
    const files: Record<string, string> = {
      'garden/tomatoes.md': '# Growing tomatoes\n\nTomatoes need sun, deep watering and a sturdy stake. Prune the suckers weekly.',
      'garden/basil.txt': 'Basil grows well next to tomatoes. Pinch the flowers so the leaves stay sweet.',
      'kitchen/sourdough.txt': 'Sourdough bread needs a lively starter, flour, water and salt. Bake in a hot dutch oven.',
      'kitchen/report.pdf.txt': 'Not the report you are looking for: this one is about ovens.',
      'reports/report.txt': 'Quarterly numbers for the bakery: revenue grew on bread and pastries.',
      'reports/annual-draft.txt': 'Draft annual summary: bread sales, pastry sales, and oven maintenance.',
      'garden-extra/notes.txt': 'Extra garden notes about tomatoes in a sibling folder whose name starts like garden.',
      // A word two notes hold, among notes that only resemble them.
      'zoo/giraffe-feeding.txt': 'Feeding time: the giraffe eats acacia leaves from the high rack at noon, then the keepers clean the enclosure.',
      'zoo/visit.txt': 'Saw a giraffe.',
      'zoo/lions.txt': 'Lions and elephants sleep through the afternoon; the zebras graze near the watering hole.',
      'zoo/safari.txt': 'Safari animals of the savanna: antelope, buffalo, rhinoceros, leopards and wild dogs.',
      'zoo/keepers.txt': 'The keepers feed the elephants hay and fruit, and hose down the enclosure in the evening.',
    };
    // Many files that all match "bread": a filter must still find the one .md file among them.
    for (let i = 0; i < 70; i++) files[`bulk/bread-${i}.txt`] = `Bread recipe number ${i}: bread, bread and more bread.`;
    files['bulk/bread-notes.md'] = 'A single markdown note that mentions bread once.';
    tree = await tempTree(files);
    const old = new Date('2020-01-01T00:00:00Z');
    await utimes(tree.path('reports/annual-draft.txt'), old, old);
    await t.request('POST', '/api/index/directory', { directory_path: tree.root });
    await t.service.indexing.settled();
  });
  after(async () => {
    await tree.remove();
    await t.destroy();
  });

  async function search(body: Record<string, unknown>): Promise<{ results: Result[]; body: Record<string, unknown> }> {
    const res = await t.request('POST', '/api/search/', body);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return { results: res.body.results as Result[], body: res.body };
  }

  const names = (results: Result[]) => results.map((r) => r.file.filename);

  it('answers results sorted by relevance_score, which is semantic_score + keyword_score', async () => {
    const { results, body } = await search({ query: 'growing tomatoes' });
    expect(body.mode).to.equal('hybrid');
    expect(body.notice).to.equal(null);
    expect(results[0]!.file.filename).to.equal('tomatoes.md');
    for (let i = 1; i < results.length; i++) expect(results[i - 1]!.relevance_score).to.be.at.least(results[i]!.relevance_score);
    for (const r of results) expect(r.relevance_score).to.be.closeTo(r.semantic_score + r.keyword_score, 2e-6);
    const top = results[0]!;
    expect(top.file).to.include.all.keys('file_path', 'filename', 'extension', 'created', 'modified', 'accessed', 'title', 'summary', 'keywords');
    expect(top.file.extension).to.equal('md');
    expect(top.file.title).to.equal('Growing tomatoes');
    expect(top.snippet.toLowerCase()).to.include('tomatoes');
    expect(top.highlights.length).to.be.greaterThan(0);
    for (const [s, e] of top.highlights) expect(top.snippet.slice(s, e).toLowerCase()).to.match(/^(tomato|grow)/);
  });

  it('ranks an exact file-name match first', async () => {
    const { results } = await search({ query: 'report.txt' });
    expect(results[0]!.file.file_path).to.equal(tree.path('reports/report.txt'));
    expect(results[0]!.filename_match).to.equal('exact');
    const stem = await search({ query: 'report' });
    expect(stem.results[0]!.file.filename).to.equal('report.txt');
    expect(stem.results[0]!.filename_match).to.equal('stem');
  });

  it('honours limit (default 50) and filters inside the query, not by trimming the top results', async () => {
    const all = await search({ query: 'bread' });
    expect(all.results).to.have.length(50);
    expect((await search({ query: 'bread', limit: 3 })).results).to.have.length(3);
    // 71 files match "bread"; the only .md one ranks below the top 50, yet the filter finds it.
    const top50 = await search({ query: 'bread', mode: 'keyword' });
    expect(names(top50.results)).to.have.length(50).and.not.include('bread-notes.md');
    const md = await search({ query: 'bread', filters: { extension: '.MD' } });
    expect(md.results[0]!.file.filename).to.equal('bread-notes.md');
    for (const r of md.results) expect(r.file.extension).to.equal('md');
    const both = await search({ query: 'bread', filters: { extension: ['md', 'pdf'] }, mode: 'keyword' });
    expect(names(both.results)).to.deep.equal(['bread-notes.md']);
  });

  it('pages with offset: the pages put together are the ranking, and has_more says when it ends', async () => {
    const whole = await search({ query: 'bread', mode: 'keyword', limit: 1000 });
    expect(whole.results.length).to.be.within(72, 89); // the 71 bulk files and a few others
    expect(whole.body).to.include({ offset: 0, has_more: false, facets: null });
    const pages = [];
    for (let offset = 0; ; offset += 30) {
      const page = await search({ query: 'bread', mode: 'keyword', limit: 30, offset });
      expect(page.body.offset).to.equal(offset);
      pages.push(...page.results);
      if (!page.body.has_more) break;
      expect(page.results).to.have.length(30);
    }
    expect(pages.map((r) => r.file.file_path)).to.deep.equal(whole.results.map((r) => r.file.file_path));
    const res = await t.request('POST', '/api/search/', { query: 'bread', offset: 990, limit: 20 });
    expect(res.status).to.equal(400);
    expect(res.body.message).to.match(/offset \+ limit must be at most 1000, got 990 \+ 20/);
  });

  it('counts the ranked files by extension, folder and modification period when asked, and they narrow the search', async () => {
    const { body } = await search({ query: 'tomatoes', mode: 'keyword', facets: true });
    const facets = body.facets as { counted: number; extension: Bucket[]; folder: Bucket[]; modified: Bucket[] };
    // Keyword mode ranks only the files with the word: tomatoes.md, basil.txt, garden-extra/notes.txt.
    expect(facets.counted).to.equal(3);
    expect(facets.extension).to.deep.equal([
      { value: 'txt', label: 'txt', count: 2 },
      { value: 'md', label: 'md', count: 1 },
    ]);
    const count = (buckets: Bucket[], value: string) => buckets.find((b) => b.value === value)?.count ?? 0;
    const results = (await search({ query: 'tomatoes', mode: 'keyword', limit: 100 })).results;
    expect(facets.counted).to.equal(results.length);
    expect(count(facets.extension, 'md')).to.equal(results.filter((r) => r.file.extension === 'md').length);
    expect(count(facets.folder, tree.path('garden'))).to.equal(results.filter((r) => r.file.file_path.startsWith(tree.path('garden') + '/')).length);
    expect(facets.folder.find((b) => b.value === tree.path('garden'))!.label).to.equal('garden');
    // Every file was written just now: all of them in the past day, none older than a year.
    expect(facets.modified[0]).to.include({ label: 'past day', count: results.length, bound: 'after' });
    // Clicking a bucket narrows the search to exactly its count.
    const narrowed = await search({ query: 'tomatoes', mode: 'keyword', directory: tree.path('garden') });
    expect(narrowed.results).to.have.length(count(facets.folder, tree.path('garden')));
    const byExt = await search({ query: 'tomatoes', mode: 'keyword', filters: { extension: 'txt' } });
    expect(byExt.results).to.have.length(count(facets.extension, 'txt'));
    const old = await search({ query: 'bread sales', mode: 'keyword', facets: true });
    const older = (old.body.facets as { modified: Bucket[] }).modified.find((b) => b.bound === 'before');
    expect(older).to.include({ label: 'older than a year', count: 1 });
    const before = await search({ query: 'bread sales', mode: 'keyword', filters: { modified_before: older!.value } });
    expect(names(before.results)).to.deep.equal(['annual-draft.txt']);
  });

  it('scopes to a directory on a path boundary', async () => {
    const { results } = await search({ query: 'tomatoes', directory: tree.path('garden') });
    expect(results.length).to.be.greaterThan(0);
    for (const r of results) expect(r.file.file_path.startsWith(tree.path('garden') + '/')).to.equal(true);
    expect(names(results)).to.not.include('notes.txt'); // garden-extra/ is a sibling, not inside garden/
    const trailing = await search({ query: 'tomatoes', directory: tree.path('garden') + '/' });
    expect(names(trailing.results)).to.deep.equal(names(results));
  });

  it('filters by dates, size, path glob and keyword', async () => {
    const before = await search({ query: 'bread sales', filters: { modified_before: '2021-01-01' } });
    expect(names(before.results)).to.deep.equal(['annual-draft.txt']);
    const after = await search({ query: 'bread sales', filters: { modified_after: '2021-01-01T00:00:00Z' } });
    expect(names(after.results)).to.not.include('annual-draft.txt');
    const small = await search({ query: 'bread', filters: { max_size: 60 } });
    for (const r of small.results) expect(r.file.size as number).to.be.at.most(60);
    const glob = await search({ query: 'tomatoes', filters: { path: 'garden/*.md' } });
    expect(names(glob.results)).to.deep.equal(['tomatoes.md']);
    const byKeyword = await search({ query: 'tomatoes', filters: { keyword: 'tomatoes' } });
    for (const r of byKeyword.results) expect((r.file.keywords as string[]).map((k) => k.toLowerCase())).to.include('tomatoes');
    expect(byKeyword.results.length).to.be.greaterThan(0);
  });

  it('supports quoted phrases and -excluded words', async () => {
    const phrase = await search({ query: '"dutch oven"' });
    expect(names(phrase.results)).to.deep.equal(['sourdough.txt']);
    const excluded = await search({ query: 'tomatoes -basil' });
    expect(names(excluded.results)).to.include('tomatoes.md');
    expect(names(excluded.results)).to.not.include('basil.txt');
  });

  it('offers keyword and semantic modes', async () => {
    const keyword = await search({ query: 'sturdy stake', mode: 'keyword' });
    expect(keyword.body.mode).to.equal('keyword');
    expect(names(keyword.results)).to.deep.equal(['tomatoes.md']);
    expect(keyword.results[0]!.semantic_score).to.equal(0);
    const semantic = await search({ query: 'vegetables in the garden', mode: 'semantic', limit: 5 });
    expect(semantic.body.mode).to.equal('semantic');
    expect(semantic.results.length).to.be.greaterThan(0);
    for (const r of semantic.results) expect(r.keyword_score).to.equal(0);
  });

  it('ranks every file holding a query word above files that only resemble it, and pads with nothing below the floor', async () => {
    const status = await t.request('GET', '/api/status/');
    const fusion = (status.body.embedder as { fusion: { floor: number; strong_cosine: number | null } }).fusion;
    const { results } = await search({ query: 'giraffe', limit: 20 });
    expect(names(results).slice(0, 2).sort()).to.deep.equal(['giraffe-feeding.txt', 'visit.txt']);
    for (const r of results.slice(2)) {
      expect(r.keyword_score).to.equal(0);
      expect((r as unknown as { cosine: number }).cosine).to.be.above(fusion.floor);
      if (fusion.strong_cosine !== null) expect((r as unknown as { cosine: number }).cosine).to.be.below(fusion.strong_cosine);
    }
    // The short note holds the word once, weakly: it still outranks every neighbour.
    for (const r of results.slice(0, 2)) expect(r.keyword_score).to.be.above(0);
  });

  it('corrects a misspelt word to the word one edit away that files hold, and says so', async () => {
    const corrected = await search({ query: 'sourdouhg starter', mode: 'keyword' });
    expect(corrected.body.did_you_mean).to.equal('sourdough starter');
    expect(corrected.body.notice).to.match(/No file contains 'sourdouhg': showing results for 'sourdough starter'/);
    expect(names(corrected.results)).to.deep.equal(['sourdough.txt']);
    expect(corrected.results[0]!.snippet).to.match(/Sourdough/);
    // Hybrid too, and a word with a transposition inside a longer query.
    const misspelt = await search({ query: 'sturdy stkae for tomatoes' });
    expect(names(misspelt.results)[0]).to.equal('tomatoes.md');
    // The semantic side searched with the corrected words' vector, not the one made while the words were looked up.
    const meant = await search({ query: 'sturdy stake for tomatoes' });
    const cosines = (answer: typeof meant) => answer.results.map((r) => [r.file.filename, (r as unknown as { cosine: number | null }).cosine]);
    expect(cosines(misspelt)).to.deep.equal(cosines(meant));
    // Known words, a quoted word (searched exactly as typed) and an excluded word are left alone.
    for (const query of ['sourdough starter', '"sourdouhg"', 'bread -sourdouhg']) {
      expect((await search({ query, mode: 'keyword' })).body.did_you_mean, query).to.equal(null);
    }
    try {
      await t.request('PUT', '/api/settings/', { 'search.typo_correction': 'suggest' });
      const suggested = await search({ query: 'sourdouhg', mode: 'keyword' });
      expect(suggested.body.did_you_mean).to.equal('sourdough');
      expect(suggested.results).to.deep.equal([]);
      await t.request('PUT', '/api/settings/', { 'search.typo_correction': 'off' });
      expect((await search({ query: 'sourdouhg', mode: 'keyword' })).body.did_you_mean).to.equal(null);
    } finally {
      await t.request('PUT', '/api/settings/', { 'search.typo_correction': 'search' });
    }
  });

  it('rejects bad requests with 400 naming the problem', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /query is required/],
      [{ query: '' }, /query must be a string of at least 1/],
      [{ query: '   ' }, /at least one word/],
      [{ query: '-only -exclusions' }, /at least one word/],
      [{ query: `sourdough ${Array.from({ length: MAX_EXCLUDED + 1 }, (_, i) => `-w${i}x`).join(' ')}` }, new RegExp(`at most ${MAX_EXCLUDED} words or phrases .* it excludes ${MAX_EXCLUDED + 1}`)],
      [{ query: 'x', limit: 0 }, /limit must be an integer from 1 to 1000/],
      [{ query: 'x', limit: 1001 }, /limit must be an integer from 1 to 1000/],
      [{ query: 'x', limit: 2.5 }, /limit must be an integer/],
      [{ query: 'x', filters: { colour: 'red' } }, /unknown field 'colour' in filters/],
      [{ query: 'x', filters: { modified_after: 'yesterday' } }, /filters\.modified_after/],
      [{ query: 'x', filters: { path: '[' } }, /filters\.path/],
      [{ query: 'x', directory: 'relative/dir' }, /directory: must be an absolute path, got 'relative\/dir'/],
      [{ query: 'x', mode: 'fuzzy' }, /mode must be one of "hybrid", "keyword", "semantic"/],
      [{ query: 'x', page: 2 }, /unknown field 'page'/],
    ];
    for (const [body, message] of cases) {
      const res = await t.request('POST', '/api/search/', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body).to.include({ success: false, code: 'invalid_request' });
      expect(res.body.message, JSON.stringify(body)).to.match(message);
    }
    // As many exclusions as allowed: answered.
    expect((await search({ query: `sourdough ${Array.from({ length: MAX_EXCLUDED }, (_, i) => `-w${i}x`).join(' ')}` })).results).to.be.an('array');
    const odd = await search({ query: `it's a (test) & "unbalanced | ! : * <> \\ quote` });
    expect(odd.results).to.be.an('array');
  });
  it('refuses impossible dates and crossed bounds rather than answering quietly, naming the API fields only', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ modified_after: '2026-02-30' }, /filters\.modified_after: must be a real date .* got '2026-02-30'/],
      [{ created_before: '2025-02-29' }, /filters\.created_before: must be a real date/],
      [{ modified_before: '2026-06-30T24:00:00Z' }, /filters\.modified_before: must be a real date/],
      [{ modified_after: '2026-13-01' }, /filters\.modified_after: must be a real date/],
      [{ modified_after: '2026-01-01junk' }, /filters\.modified_after: must be a real date/],
      [{ modified_after: '2026-06-01', modified_before: '2026-01-01' }, /filters\.modified_after: is past its upper bound/],
      [{ created_after: '2026-06-01', created_before: '2026-01-01' }, /filters\.created_after: is past its upper bound/],
      [{ min_size: 10, max_size: 5 }, /filters\.min_size: is past its upper bound/],
    ];
    for (const [filters, message] of cases) {
      const res = await t.request('POST', '/api/search/', { query: 'x', filters });
      expect(res.status, JSON.stringify(filters)).to.equal(400);
      expect(res.body.message, JSON.stringify(filters)).to.match(message);
      expect(res.body.message).not.to.match(/\b(modifiedAfter|modifiedBefore|createdAfter|createdBefore|sizeMin|sizeMax|pathGlob)\b/);
    }
    // Real dates, leap day included, are fine.
    expect((await t.request('POST', '/api/search/', { query: 'x', filters: { modified_after: '2024-02-29', modified_before: '2026-02-28T23:59:59Z' } })).status).to.equal(200);
  });

  it('stops a search whose request the client closed (search as you type) before its next step, and keeps answering', async () => {
    // The real service's store, its typo step held until the client has gone, its keyword step counted.
    const api = t.service.store.api.search;
    const original = { corrections: api.corrections, keyword: api.keyword };
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reached = (): void => undefined;
    const atGate = new Promise<void>((resolve) => (reached = resolve));
    let keywordCalls = 0;
    let correctionsDone = false;
    api.corrections = async (text) => {
      reached();
      await held;
      return original.corrections(text).finally(() => (correctionsDone = true));
    };
    api.keyword = (...args) => (keywordCalls++, original.keyword(...args));
    try {
      const client = new AbortController();
      const answered = fetch(`${t.service.url}/api/search/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'sourdough starter', mode: 'keyword' }),
        signal: client.signal,
      }).then(
        () => 'answered',
        (err: unknown) => (err instanceof Error ? err.name : String(err)),
      );
      await atGate;
      expect(t.service.search.running).to.equal(1);
      client.abort();
      expect(await answered).to.equal('AbortError');
      // The service sees the connection close, and lets the search go (a new one would not share it).
      await eventually(() => t.service.search.running === 0);
      release();
      // The typo step it was in ends (a keyword step would follow at once, in the same turn); none comes after it.
      await eventually(() => correctionsDone);
      expect(keywordCalls).to.equal(0);
      const again = await search({ query: 'sourdough starter', mode: 'keyword' });
      expect(names(again.results)).to.deep.equal(['sourdough.txt']);
      expect(keywordCalls).to.equal(1);
    } finally {
      release();
      api.corrections = original.corrections;
      api.keyword = original.keyword;
    }
  });
});
