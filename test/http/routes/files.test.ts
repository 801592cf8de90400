import { expect } from 'chai';
import { forEachEngine } from '../../helpers/engines.js';
import { tempTree, type TempTree } from '../../helpers/files.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { readKnownUnder } from '../../../src/store/repositories/known-under.js';

const PARAGRAPH = 'Tomatoes need sun and deep watering; the gardener stakes each tomato plant in May. ';

forEachEngine('GET /api/files/{id}/content', (engine) => {
  let t: TestService;
  let tree: TempTree;
  const ids: Record<string, number> = {};

  before(async () => {
    t = await startTestService(engine);
    tree = await tempTree({
      'garden.txt': PARAGRAPH.repeat(400), // ~34,000 characters: more than one small page
      'café.txt': 'Crème brûlée 🍮 after the tomatoes, naïvely.',
      'broken.pdf': '%PDF-1.7\nnot really a pdf',
    });
    await t.request('POST', '/api/index/directory', { directory_path: tree.root });
    await t.service.indexing.settled();
    for (const known of await readKnownUnder(t.service.store.api.files, tree.root)) ids[known.path.slice(tree.root.length + 1)] = known.id;
  });
  after(async () => {
    await tree.remove();
    await t.destroy();
  });

  async function content(id: number, query = '') {
    const res = await t.request('GET', `/api/files/${id}/content${query}`);
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body as { text: string; offset: number; length: number; total_length: number; next_offset: number | null; highlights: [number, number][]; text_truncated: boolean };
  }

  it('pages through the extracted text: the pages put together are the whole text', async () => {
    const id = ids['garden.txt']!;
    const first = await content(id, '?length=10000');
    expect(first).to.include({ offset: 0, length: 10000, next_offset: 10000, text_truncated: false });
    expect(first.total_length).to.equal((await t.request('GET', `/api/files/${id}`)).body.content_length);
    let text = first.text;
    let next = first.next_offset;
    while (next !== null) {
      const page = await content(id, `?offset=${next}&length=10000`);
      expect(page.offset).to.equal(next);
      text += page.text;
      next = page.next_offset;
    }
    expect(text.length).to.equal(first.total_length);
    expect(text.startsWith('Tomatoes need sun')).to.equal(true);
    const whole = await content(id);
    expect(whole.text).to.equal(text); // the default page (50,000 characters) holds it all
    expect(whole.next_offset).to.equal(null);
  });

  it('counts offsets in characters, not bytes or UTF-16 units, and highlights the query words as search does', async () => {
    const id = ids['café.txt']!;
    const whole = await content(id, '?q=tomato%20brulee');
    expect(whole.text).to.equal('Crème brûlée 🍮 after the tomatoes, naïvely.');
    expect(whole.total_length).to.equal([...whole.text].length);
    const words = whole.highlights.map(([s, e]) => whole.text.slice(s, e));
    expect(words).to.deep.equal(['tomatoes']); // 'brulee' is not 'brûlée'
    const tail = await content(id, '?offset=13&length=3');
    expect(tail.text).to.equal('🍮 a'); // the emoji is one character
    expect(tail).to.include({ length: 3, next_offset: 16 });
    const past = await content(id, '?offset=1000');
    expect(past).to.include({ text: '', length: 0, next_offset: null });
  });

  it('answers an empty text for a failed file, 404 for an unknown one, 400 for bad parameters', async () => {
    const failed = await content(ids['broken.pdf']!);
    expect(failed).to.include({ text: '', total_length: 0 });
    const missing = await t.request('GET', '/api/files/999999/content');
    expect(missing.status).to.equal(404);
    expect(missing.body).to.include({ success: false, code: 'not_found', file_id: 999999 });
    const cases: [string, RegExp][] = [
      ['?length=0', /length must be an integer from 1 to 500000/],
      ['?length=600000', /length must be an integer from 1 to 500000/],
      ['?offset=-1', /offset must be an integer/],
      ['?offset=abc', /offset must be an integer/],
      ['?page=2', /unknown field 'page'/],
      ['?q=a&q=b', /'q' is given more than once/],
    ];
    for (const [query, message] of cases) {
      const res = await t.request('GET', `/api/files/${ids['garden.txt']}/content${query}`);
      expect(res.status, query).to.equal(400);
      expect(res.body.code).to.equal('invalid_request');
      expect(res.body.message, query).to.match(message);
    }
  });
});
