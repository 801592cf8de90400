import { expect } from 'chai';
import { forEachEngine } from '../../helpers/engines.js';
import { tempTree, type TempTree } from '../../helpers/files.js';
import { startTestService, type TestService } from '../../helpers/service.js';

forEachEngine('indexing and files routes', (engine) => {
  let t: TestService;
  let tree: TempTree;
  before(async () => {
    t = await startTestService(engine);
    tree = await tempTree({ 'a.txt': 'alpha bravo charlie', 'id_rsa': 'PRIVATE KEY' });
  });
  after(async () => {
    await tree.remove();
    await t.destroy();
  });

  it('POST /api/index/directory answers 201 at once and indexes asynchronously', async () => {
    const res = await t.request('POST', '/api/index/directory', { directory_path: tree.root });
    expect(res.status).to.equal(201);
    expect(res.body).to.include({ success: true, files_indexed: 0 });
    expect(res.body.message).to.include(tree.root);
    expect(res.body.run_id).to.be.a('string');
    await t.service.indexing.settled();
    expect((await t.request('GET', '/api/files/stats')).body.total_files).to.equal(1);
  });

  it('POST /api/index/file answers 201 with file_id null', async () => {
    const res = await t.request('POST', '/api/index/file', { file_path: tree.path('a.txt') });
    expect(res.status).to.equal(201);
    expect(res.body).to.include({ success: true, file_id: null });
    await t.service.indexing.settled();
  });

  it('answers 400 with success false for relative, missing and wrong-kind paths', async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['/api/index/directory', { directory_path: 'relative/dir' }, /absolute/],
      ['/api/index/directory', { directory_path: tree.path('nope') }, /does not exist/],
      ['/api/index/directory', { directory_path: tree.path('a.txt') }, /not a directory/],
      ['/api/index/directory', {}, /directory_path is required/],
      ['/api/index/directory', { directory_path: tree.root, extra: 1 }, /unknown field 'extra'/],
      ['/api/index/file', { file_path: 'a.txt' }, /absolute/],
      ['/api/index/file', { file_path: tree.root }, /not a regular file/],
      ['/api/index/file', { file_path: 42 }, /file_path must be a string/],
      ['/api/index/file', { file_path: tree.path('id_rsa') }, /not indexed: .*id_rsa/],
    ];
    for (const [route, body, message] of cases) {
      const res = await t.request('POST', route, body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.success).to.equal(false);
      expect(res.body.message).to.match(message);
      if (route.endsWith('directory')) expect(res.body.files_indexed).to.equal(0);
      else expect(res.body.file_id).to.equal(null);
    }
  });

  it('GET /api/files/{id}: 404 JSON when absent, 400 for a malformed id', async () => {
    const missing = await t.request('GET', '/api/files/999999');
    expect(missing.status).to.equal(404);
    expect(missing.body).to.include({ success: false, code: 'not_found', file_id: 999999 });
    for (const bad of ['abc', '0', '-1', '1.5']) {
      const res = await t.request('GET', `/api/files/${bad}`);
      expect(res.status, bad).to.equal(400);
      expect(res.body.code).to.equal('invalid_request');
    }
  });

  it('GET /api/index/runs lists the runs going on with their progress, and none once they are over', async () => {
    const big = await tempTree(Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`n${i}.txt`, `note ${i} on lighthouses and keepers`])));
    try {
      const started = await t.request('POST', '/api/index/directory', { directory_path: big.root });
      const runs = (await t.request('GET', '/api/index/runs')).body.runs as Record<string, unknown>[];
      const run = runs.find((r) => r.run_id === started.body.run_id);
      expect(run, 'the run is listed while it goes on').to.not.equal(undefined);
      expect(run).to.include({ kind: 'directory', path: big.root, force: true });
      expect(run!.started_at).to.be.a('string');
      await t.service.indexing.settled();
      expect((await t.request('GET', '/api/index/runs')).body.runs).to.deep.equal([]);
    } finally {
      await big.remove();
    }
  });
});
