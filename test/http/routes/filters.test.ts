import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultFilterConfig } from '../../../src/filters/defaults.js';
import { compileFilter } from '../../../src/filters/matcher.js';
import { normaliseConfig } from '../../../src/filters/config.js';
import type { FilterMode } from '../../../src/filters/schema.js';
import type { AnyBusEvent } from '../../../src/events/types.js';
import { forEachEngine } from '../../helpers/engines.js';
import { tempTree, type TempTree } from '../../helpers/files.js';
import { withWatchJobs } from '../../helpers/jobs.js';
import { queueIdle } from '../../actors/watcher/helpers.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { repoRoot } from '../../helpers/shared.js';

/**
 * A home folder with documents beside a git repository: its internals, installed packages, secrets, keys and
 * build outputs. Every file is text, so every file that gets in is indexed (none fails).
 */
const TREE: Record<string, string> = {
  'Documents/notes.md': '# Garden plans\n\nPlant tomatoes and basil along the south fence in May.\n',
  'Documents/report.txt': 'Quarterly revenue of the bakery grew because sourdough bread sold well.\n',
  'Documents/budget.csv': 'item,amount\nflour,120\nbutter,80\n',
  'Documents/letter.html': '<html><body><p>Dear neighbour, the fence will be painted on Saturday.</p></body></html>',
  'project/README.md': '# Weather station\n\nReads the anemometer and logs wind speed every minute.\n',
  'project/.gitignore': 'node_modules/\n.env\n',
  'project/.env.example': 'API_URL=https://example.invalid\nAPI_KEY=\n',
  'project/src/index.ts': 'export const windSpeed = (rpm: number) => rpm * 0.1;\n',
  'project/src/util.py': 'def celsius(f):\n    return (f - 32) * 5 / 9\n',
  'project/build/guide.md': '# Build guide\n\nRun make to compile the station firmware.\n',
  // Junk and secrets: never indexed with the default configuration.
  'project/.git/HEAD': 'ref: refs/heads/main\n',
  'project/.git/config': '[core]\n\trepositoryformatversion = 0\n',
  'project/.git/objects/ab/cdef0123': 'x\u0001compressed',
  'project/node_modules/left-pad/README.md': '# left-pad\n\nPads strings on the left.\n',
  'project/node_modules/left-pad/index.js': 'module.exports = (s, n) => s.padStart(n);\n',
  'project/package-lock.json': '{"lockfileVersion": 3}\n',
  'project/.env': 'API_KEY=sk-live-very-secret\n',
  'project/.env.local': 'API_KEY=sk-local-secret\n',
  'project/certs/server.pem': '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n',
  'project/build/bundle.min.js': 'var a=1;\n',
  'project/build/main.o': 'ELF object',
  '.ssh/id_rsa': '-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----\n',
  'keys/id_rsa.backup': 'another private key\n',
};

/** What the default (blacklist) configuration indexes. */
const DOCS = [
  'Documents/budget.csv',
  'Documents/letter.html',
  'Documents/notes.md',
  'Documents/report.txt',
  'project/.env.example',
  'project/.gitignore',
  'project/README.md',
  'project/build/guide.md',
  'project/src/index.ts',
  'project/src/util.py',
];
/** What the default whitelist (document formats) keeps of them. */
const WHITELIST_DOCS = DOCS.filter((d) => /\.(md|txt|csv|html)$/.test(d));
const SOURCES = DOCS.filter((d) => !WHITELIST_DOCS.includes(d));

interface Change {
  success: boolean;
  message: string;
  changed: string[];
  applied: boolean;
  removed: number;
  queued: number;
  run_id: string | null;
  config: Record<string, unknown>;
}

forEachEngine('filters API', (engine) => {
  let t: TestService;
  let tree: TempTree;
  let events: AnyBusEvent[] = [];
  let unsubscribe = () => {};

  /** Records the events of the running service from now on (from scratch). */
  const listen = () => {
    unsubscribe();
    events = [];
    unsubscribe = t.service.bus.subscribe((e) => events.push(e));
  };
  /** Relative paths of every file in the index under the tree (indexed or failed), sorted. */
  const indexed = async (): Promise<string[]> => {
    const all = await t.service.store.api.files.listPaths(null, 100_000);
    return all.filter((p) => p.startsWith(tree.root + path.sep)).map((p) => path.relative(tree.root, p).split(path.sep).join('/')).sort();
  };
  const ofType = <T>(type: string): T[] => events.filter((e) => e.type === type).map((e) => e.data as T);
  const rel = (p: string) => path.relative(tree.root, p).split(path.sep).join('/');
  const removedEvents = () => ofType<{ path: string; reason: string; run_id: string }>('file_removed');
  const change = async (method: string, route: string, body?: unknown): Promise<Change> => {
    const res = await t.request(method, route, body);
    expect(res.status, `${method} ${route} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).to.equal(200);
    return res.body as unknown as Change;
  };
  const settled = () => t.service.indexing.settled();

  before(async () => {
    t = await startTestService(engine);
    tree = await tempTree(TREE);
    listen();
  });
  after(async () => {
    await t.destroy();
    await tree.remove();
  });

  describe('configuration', () => {
    it('GET /api/filters/config answers the SPEC 2.8 shape, the defaults at first', async () => {
      const res = await t.request('GET', '/api/filters/config');
      expect(res.status).to.equal(200);
      expect(res.body).to.have.all.keys('mode', 'exclude', 'include', 'blacklist_exclude', 'blacklist_include', 'whitelist_include', 'whitelist_exclude');
      expect(res.body).to.deep.equal(defaultFilterConfig());
      expect(res.body.mode).to.equal('blacklist');
      expect(res.body.exclude).to.deep.equal(res.body.blacklist_exclude);
      expect(res.body.include).to.deep.equal(res.body.blacklist_include);
    });

    it('GET /api/filters/defaults answers the default configuration in the same shape', async () => {
      const res = await t.request('GET', '/api/filters/defaults');
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(defaultFilterConfig());
      expect(res.body.blacklist_exclude).to.include.members(['.git', 'node_modules/', '.env', '*.pem', 'id_rsa*']);
      expect(res.body.whitelist_include).to.include.members(['*.pdf', '*.md', '*.docx']);
    });

    it('rejects malformed bodies with 400 invalid_request', async () => {
      const cases: [string, string, unknown, RegExp][] = [
        ['PUT', '/api/filters/config', { mode: 'greylist' }, /mode/],
        ['PUT', '/api/filters/config', { colour: 'red' }, /unknown field 'colour'/],
        ['PUT', '/api/filters/config', { blacklist_exclude: 'node_modules/' }, /blacklist_exclude/],
        ['PUT', '/api/filters/config', { apply_immediately: 'yes' }, /apply_immediately/],
        ['POST', '/api/filters/pattern', { pattern: '*.psd' }, /list is required/],
        ['POST', '/api/filters/pattern', { pattern: '*.psd', list: 'blocklist' }, /list/],
        ['DELETE', '/api/filters/pattern', { pattern: 7, list: 'exclude' }, /pattern must be a string/],
        ['POST', '/api/filters/test', {}, /path is required/],
        ['POST', '/api/filters/test', { path: '/x', kind: 'socket' }, /kind/],
      ];
      for (const [method, route, body, message] of cases) {
        const res = await t.request(method, route, body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body).to.include({ success: false, code: 'invalid_request' });
        expect(res.body.message).to.match(message);
      }
    });
  });

  describe('files indexed through /api/index (no watched folder)', () => {
    it('the default configuration indexes the documents and none of the junk or secrets', async () => {
      const res = await t.request('POST', '/api/index/directory', { directory_path: tree.root });
      expect(res.status).to.equal(201);
      await settled();
      expect(await indexed()).to.deep.equal(DOCS);
      const stats = (await t.request('GET', '/api/files/stats')).body;
      expect(stats).to.include({ total_files: DOCS.length, failed_files: 0 });
      const secrets = ['project/.env', 'project/.env.local', '.ssh/id_rsa', 'keys/id_rsa.backup', 'project/certs/server.pem', 'project/.git/HEAD'];
      expect(await t.service.store.api.files.known(secrets.map((s) => tree.path(s)))).to.deep.equal([]);
    });

    it('a mode switch with apply_immediately false changes the configuration only', async () => {
      listen();
      const body = await change('PUT', '/api/filters/config', { mode: 'whitelist', apply_immediately: false });
      expect(body).to.include({ success: true, applied: false, removed: 0, queued: 0, run_id: null });
      expect(body.changed).to.deep.equal(['mode']);
      expect(body.message).to.match(/POST \/api\/filters\/apply/);
      const config = body.config as ReturnType<typeof defaultFilterConfig>;
      expect(config.mode).to.equal('whitelist');
      expect(config.include).to.deep.equal(config.whitelist_include);
      expect(config.exclude).to.deep.equal(config.whitelist_exclude);
      // Switching loses nothing: the blacklist lists are kept as they were.
      expect(config.blacklist_exclude).to.deep.equal(defaultFilterConfig().blacklist_exclude);
      expect((await t.request('GET', '/api/filters/config')).body).to.deep.equal(config);
      expect(await indexed()).to.deep.equal(DOCS);
      const [changed] = ofType<{ mode: string; changed: string[]; applied: boolean; run_id: string | null }>('filters_changed');
      expect(changed).to.deep.include({ mode: 'whitelist', changed: ['mode'], applied: false, run_id: null });
      expect(removedEvents()).to.deep.equal([]);
    });

    it('POST /api/filters/apply removes what the whitelist excludes, judging unwatched files by name', async () => {
      listen();
      const body = await change('POST', '/api/filters/apply');
      expect(body).to.include({ success: true, applied: true, removed: SOURCES.length, queued: 0 });
      expect(body.changed).to.deep.equal([]);
      expect(body.run_id).to.be.a('string');
      expect(await indexed()).to.deep.equal(WHITELIST_DOCS);
      await settled();
      const removed = removedEvents();
      expect(removed.map((e) => rel(e.path)).sort()).to.deep.equal(SOURCES);
      expect(removed.every((e) => e.reason === 'excluded' && e.run_id === body.run_id)).to.equal(true);
      const [started] = ofType<{ run_id: string; kind: string }>('index_run_started');
      expect(started).to.include({ run_id: body.run_id, kind: 'filters' });
      const [completed] = ofType<{ run_id: string; removed: number; indexed: number }>('index_run_completed');
      expect(completed).to.include({ run_id: body.run_id, removed: SOURCES.length, indexed: 0 });
      expect((await t.request('GET', '/api/files/stats')).body.total_files).to.equal(WHITELIST_DOCS.length);
    });

    it('switching back applies at once, but files outside watched folders come back only when indexed again', async () => {
      listen();
      const body = await change('PUT', '/api/filters/config', { mode: 'blacklist' });
      expect(body).to.include({ applied: true, removed: 0, queued: 0 });
      expect(await indexed()).to.deep.equal(WHITELIST_DOCS);
      await t.request('POST', '/api/index/directory', { directory_path: tree.root, force: false });
      await settled();
      expect(await indexed()).to.deep.equal(DOCS);
    });

    it('a name pattern removes unwatched files at once; a folder pattern only when their folder is indexed again', async () => {
      listen();
      const byName = await change('POST', '/api/filters/pattern', { pattern: '*.py', list: 'exclude' });
      expect(byName).to.include({ applied: true, removed: 1, queued: 0 });
      expect(await indexed()).to.not.include('project/src/util.py');
      const byFolder = await change('POST', '/api/filters/pattern', { pattern: 'src/', list: 'exclude' });
      expect(byFolder).to.include({ applied: true, removed: 0 });
      expect(await indexed()).to.include('project/src/index.ts');
      await t.request('POST', '/api/index/directory', { directory_path: tree.root, force: false });
      await settled();
      expect(await indexed()).to.deep.equal(DOCS.filter((d) => !d.startsWith('project/src/')));
      // The directory run tells why: the file is still on disk, the filter excludes it now.
      expect(removedEvents().find((e) => rel(e.path) === 'project/src/index.ts')).to.include({ reason: 'excluded' });
      await change('DELETE', '/api/filters/pattern', { pattern: 'src/', list: 'exclude' });
      await change('DELETE', '/api/filters/pattern', { pattern: '*.py', list: 'exclude' });
      await t.request('POST', '/api/index/directory', { directory_path: tree.root, force: false });
      await settled();
      expect(await indexed()).to.deep.equal(DOCS);
    });
  });

  describe('a watched folder', () => {
    before(async () => {
      // Prepared for whitelist mode (inactive now): must not touch the index, and must survive the restart.
      const body = await change('POST', '/api/filters/pattern', { pattern: '*.ts', list: 'include', mode: 'whitelist' });
      expect(body).to.include({ applied: false, removed: 0, queued: 0 });
      expect(body.changed).to.deep.equal(['whitelist_include']);
      expect(body.message).to.match(/blacklist lists in force are unchanged/);
      t = await withWatchJobs(t, [{ path: tree.root }]);
      // The restart's own work (the watcher's first scan, the start-up reconcile, what they queue) goes on after
      // it answers: let it end, so that what a test below sees indexed, and by which run, is its own change's.
      const jobs = (await t.request('GET', '/api/watch/jobs')).body as unknown as { jobs: { id: number }[] };
      for (const job of jobs.jobs) await t.service.watcher.settled(job.id);
      await queueIdle(t);
      listen();
    });

    it('the configuration persists across a restart', async () => {
      const config = (await t.request('GET', '/api/filters/config')).body;
      expect(config.mode).to.equal('blacklist');
      expect(config.whitelist_include).to.include('*.ts');
      expect(await indexed()).to.deep.equal(DOCS);
    });

    it('/api/filters/test explains each decision: pattern, list and the folder it matched', async () => {
      type Test = { indexed: boolean; mode: string; decided_by: { list: string; pattern: string; matched_path: string } | null; reason: string; root: string | null; watched: boolean; relative_path: string; kind: string };
      const test = async (body: Record<string, unknown>): Promise<Test> => {
        const res = await t.request('POST', '/api/filters/test', body);
        expect(res.status, JSON.stringify(res.body)).to.equal(200);
        return res.body as unknown as Test;
      };
      const modules = await test({ path: tree.path('project/node_modules/left-pad/README.md') });
      expect(modules).to.deep.include({
        indexed: false,
        mode: 'blacklist',
        decided_by: { list: 'exclude', pattern: 'node_modules/', matched_path: 'project/node_modules' },
        root: tree.root,
        watched: true,
        relative_path: 'project/node_modules/left-pad/README.md',
        kind: 'file',
      });
      expect(modules.reason).to.equal("excluded by pattern 'node_modules/' (blacklist exclude), which matches the folder 'project/node_modules'");

      const example = await test({ path: tree.path('project/.env.example') });
      expect(example).to.deep.include({ indexed: true, decided_by: { list: 'include', pattern: '.env.example', matched_path: 'project/.env.example' } });
      expect(example.reason).to.equal("indexed: pattern '.env.example' (blacklist include) overrides exclude pattern '.env.*'");

      expect((await test({ path: tree.path('project/.env') })).decided_by).to.deep.equal({ list: 'exclude', pattern: '.env', matched_path: 'project/.env' });
      expect((await test({ path: tree.path('keys/id_rsa.backup') })).decided_by).to.include({ pattern: 'id_rsa*' });
      expect((await test({ path: tree.path('project/certs/server.pem') })).decided_by).to.include({ pattern: '*.pem' });
      expect((await test({ path: tree.path('project/build/bundle.min.js') })).decided_by).to.include({ pattern: '*.min.js' });
      const guide = await test({ path: tree.path('project/build/guide.md') });
      expect(guide).to.deep.include({ indexed: true, decided_by: null, reason: 'indexed: no exclude pattern matches (blacklist mode)' });

      const git = await test({ path: tree.path('project/.git') });
      expect(git).to.deep.include({ kind: 'directory', indexed: false, decided_by: { list: 'exclude', pattern: '.git', matched_path: 'project/.git' } });
      expect(git.reason).to.match(/nothing inside it is indexed/);
      expect(await test({ path: tree.root })).to.deep.include({ kind: 'directory', indexed: true, relative_path: '', watched: true });

      // "What if": the whitelist's own lists decide, without switching.
      const whatIf = await test({ path: tree.path('project/src/util.py'), mode: 'whitelist' });
      expect(whatIf).to.deep.include({ indexed: false, mode: 'whitelist', decided_by: null, reason: 'not indexed: no include pattern matches (whitelist mode)' });
      expect((await test({ path: tree.path('project/src/index.ts'), mode: 'whitelist' })).decided_by).to.include({ list: 'include', pattern: '*.ts' });

      // A path relative to a watched folder; a path that does not exist is judged as a file.
      const relative = await test({ path: 'app/node_modules/x/README.md' });
      expect(relative).to.deep.include({ indexed: false, root: null, watched: false, relative_path: 'app/node_modules/x/README.md' });
      expect(await test({ path: 'logs/' })).to.deep.include({ kind: 'directory', indexed: true });
      // Outside every watched folder, only the name decides (as for POST /api/index/file).
      const outside = await test({ path: '/elsewhere/node_modules/pkg/README.md' });
      expect(outside).to.deep.include({ indexed: true, root: '/elsewhere/node_modules/pkg', watched: false, relative_path: 'README.md' });
      expect((await test({ path: '/elsewhere/server.pem' })).indexed).to.equal(false);

      const bad = await t.request('POST', '/api/filters/test', { path: '../etc/passwd' });
      expect(bad.status).to.equal(400);
      expect(bad.body).to.include({ success: false, code: 'invalid_path' });
    });

    it('switching to whitelist removes the sources at once; switching back queues them again', async () => {
      listen();
      const toWhitelist = await change('PUT', '/api/filters/config', { mode: 'whitelist' });
      const keptTs = SOURCES.filter((s) => !s.endsWith('.ts'));
      expect(toWhitelist).to.include({ applied: true, removed: keptTs.length, queued: 0 });
      expect(await indexed()).to.deep.equal([...WHITELIST_DOCS, 'project/src/index.ts'].sort());
      await settled();
      expect(removedEvents().map((e) => rel(e.path)).sort()).to.deep.equal(keptTs);

      listen();
      const toBlacklist = await change('PUT', '/api/filters/config', { mode: 'blacklist' });
      expect(toBlacklist).to.include({ applied: true, removed: 0, queued: keptTs.length });
      await settled();
      expect(await indexed()).to.deep.equal(DOCS);
      const indexedEvents = ofType<{ run_id: string; path: string }>('file_indexed').filter((e) => e.run_id === toBlacklist.run_id);
      expect(indexedEvents.map((e) => rel(e.path)).sort()).to.deep.equal(keptTs);
      const [changed] = ofType<{ changed: string[]; applied: boolean; removed: number; queued: number; run_id: string }>('filters_changed');
      expect(changed).to.deep.include({ changed: ['mode'], applied: true, removed: 0, queued: keptTs.length, run_id: toBlacklist.run_id });
      const completed = ofType<{ run_id: string; kind: string; indexed: number }>('index_run_completed').find((e) => e.run_id === toBlacklist.run_id);
      expect(completed).to.include({ kind: 'filters', indexed: keptTs.length });
    });

    it('a change made with apply_immediately false is applied by the next applied change too', async () => {
      await change('PUT', '/api/filters/config', { mode: 'whitelist', apply_immediately: false });
      expect(await indexed()).to.deep.equal(DOCS);
      const body = await change('POST', '/api/filters/pattern', { pattern: '*.csv', list: 'exclude' });
      // The whitelist's exclusions and the new pattern both apply.
      const expected = [...WHITELIST_DOCS, 'project/src/index.ts'].filter((d) => !d.endsWith('.csv')).sort();
      expect(body).to.include({ applied: true, removed: DOCS.length - expected.length, queued: 0 });
      expect(await indexed()).to.deep.equal(expected);
      await change('DELETE', '/api/filters/pattern', { pattern: '*.csv', list: 'exclude' });
      await change('PUT', '/api/filters/config', { mode: 'blacklist' });
      await settled();
      expect(await indexed()).to.deep.equal(DOCS);
    });

    it('adds and removes patterns: duplicates are a no-op 200, a missing pattern 404, a bad one 400', async () => {
      listen();
      const added = await change('POST', '/api/filters/pattern', { pattern: '*.py', list: 'exclude' });
      expect(added).to.include({ applied: true, removed: 1, queued: 0 });
      expect(added.changed).to.deep.equal(['blacklist_exclude']);
      expect(added.message).to.match(/^Added '\*\.py' to blacklist exclude/);
      expect((added.config.blacklist_exclude as string[]).at(-1)).to.equal('*.py');
      expect(added.config.exclude).to.deep.equal(added.config.blacklist_exclude);
      expect(await indexed()).to.not.include('project/src/util.py');

      const again = await change('POST', '/api/filters/pattern', { pattern: '*.PY', list: 'exclude' });
      expect(again).to.include({ applied: false, removed: 0, queued: 0, run_id: null });
      expect(again.changed).to.deep.equal([]);
      expect(again.message).to.match(/already in blacklist exclude as '\*\.py'/);
      expect(again.config).to.deep.equal(added.config);

      const removed = await change('DELETE', '/api/filters/pattern', { pattern: '*.py', list: 'exclude', mode: 'blacklist' });
      expect(removed).to.include({ applied: true, removed: 0, queued: 1 });
      await settled();
      expect(await indexed()).to.deep.equal(DOCS);

      const missing = await t.request('DELETE', '/api/filters/pattern', { pattern: '*.py', list: 'exclude' });
      expect(missing.status).to.equal(404);
      expect(missing.body).to.include({ success: false, code: 'pattern_not_found', field: 'blacklist_exclude', pattern: '*.py' });

      const lockfile = await change('DELETE', '/api/filters/pattern', { pattern: 'package-lock.json', list: 'exclude' });
      expect(lockfile).to.include({ applied: true, removed: 0, queued: 1 });
      await settled();
      expect(await indexed()).to.include('project/package-lock.json');

      const bad: [unknown, RegExp][] = [
        ['', /empty/],
        ['   ', /empty/],
        ['*.{pdf,docx', /\{/],
        ['[draft plan.md', /\[/],
        ['!*.md', /negation/],
        ['../x', /\.\./],
        [`${tree.root}/private/`, /absolute|watched/],
      ];
      for (const [pattern, reason] of bad) {
        for (const method of ['POST', 'DELETE']) {
          const res = await t.request(method, '/api/filters/pattern', { pattern, list: 'include' });
          expect(res.status, `${method} ${String(pattern)}`).to.equal(400);
          expect(res.body).to.include({ success: false, code: 'invalid_pattern', field: 'pattern' });
          expect(res.body.message, String(pattern)).to.match(reason);
        }
      }
      const badList = await t.request('PUT', '/api/filters/config', { blacklist_include: ['*.md', '*.{x'] });
      expect(badList.status).to.equal(400);
      expect(badList.body).to.include({ code: 'invalid_pattern', field: 'blacklist_include[1]' });
      expect((await t.request('GET', '/api/filters/config')).body.blacklist_include).to.deep.equal(defaultFilterConfig().blacklist_include);
    });

    it('concurrent changes are serialised: none is lost and the index ends in line', async () => {
      const patterns = ['*.psd', '*.ai', '*.sketch', '*.xcf', '*.kra'];
      const results = await Promise.all(patterns.map((pattern) => t.request('POST', '/api/filters/pattern', { pattern, list: 'exclude' })));
      expect(results.map((r) => r.status)).to.deep.equal(patterns.map(() => 200));
      expect((await t.request('GET', '/api/filters/config')).body.blacklist_exclude).to.include.members(patterns);
      // Mode switches in a row, each answered before its run has indexed everything: a new application
      // stops the previous one's run and picks up its files; the index ends matching the last configuration.
      listen();
      for (const mode of ['whitelist', 'blacklist', 'whitelist', 'blacklist']) await change('PUT', '/api/filters/config', { mode });
      await settled();
      expect((await t.request('GET', '/api/filters/config')).body.mode).to.equal('blacklist');
      expect(await indexed()).to.deep.equal([...DOCS, 'project/package-lock.json'].sort());
    });

    it('POST /api/filters/reset and /apply take no body: a field sent anyway is a 400, and nothing changes', async () => {
      await change('PUT', '/api/filters/config', { mode: 'whitelist', apply_immediately: false });
      for (const [route, body] of [['/api/filters/reset', { mode: 'blacklist' }], ['/api/filters/reset', { apply_immediately: false }], ['/api/filters/apply', []]] as const) {
        const res = await t.request('POST', route, body);
        expect(res.status, route).to.equal(400);
        expect(res.body).to.include({ success: false, code: 'invalid_request' });
        expect(res.body.message).to.match(/takes no body fields, got (field '(mode|apply_immediately)'|a list)/);
      }
      expect((await t.request('GET', '/api/filters/config')).body.mode).to.equal('whitelist');
      await change('PUT', '/api/filters/config', { mode: 'blacklist', apply_immediately: false });
    });

    it('POST /api/filters/reset restores the defaults and cleans up the index', async () => {
      await change('PUT', '/api/filters/config', { mode: 'whitelist', whitelist_include: ['*.md'], apply_immediately: false });
      listen();
      const body = await change('POST', '/api/filters/reset');
      expect(body.config).to.deep.equal(defaultFilterConfig());
      expect(body.changed).to.include.members(['mode', 'blacklist_exclude', 'whitelist_include']);
      expect(body).to.include({ applied: true, removed: 1, queued: 0 }); // the lock file, excluded again
      await settled();
      expect(await indexed()).to.deep.equal(DOCS);
      expect(removedEvents().map((e) => rel(e.path))).to.deep.equal(['project/package-lock.json']);
      expect(ofType<{ applied: boolean }>('filters_changed')).to.have.length(1);
      t = await t.restart();
      expect((await t.request('GET', '/api/filters/config')).body).to.deep.equal(defaultFilterConfig());
    });

    it('a watch job\'s file_pattern and recursive flag limit what is queued', async () => {
      await change('PUT', '/api/filters/config', { mode: 'whitelist', whitelist_include: [] });
      expect(await indexed()).to.deep.equal([]);
      t = await withWatchJobs(t, [{ path: tree.root, file_pattern: '*.md' }]);
      const md = await change('PUT', '/api/filters/config', { mode: 'blacklist' });
      expect(md).to.include({ removed: 0, queued: DOCS.filter((d) => d.endsWith('.md')).length });
      await settled();
      expect(await indexed()).to.deep.equal(DOCS.filter((d) => d.endsWith('.md')));
      t = await withWatchJobs(t, [{ path: tree.path('Documents'), recursive: false }, { path: tree.path('project/src') }]);
      const rest = await change('POST', '/api/filters/apply');
      expect(rest).to.include({ removed: 0, queued: 5 }); // Documents' 3 other files, src's 2
      await settled();
      const expected = [...DOCS.filter((d) => d.endsWith('.md')), ...DOCS.filter((d) => d.startsWith('Documents/') || d.startsWith('project/src/'))];
      expect(await indexed()).to.deep.equal([...new Set(expected)].sort());
    });
  });
});

describe('README: the filters section', () => {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const block = (name: string): string => {
    const start = readme.indexOf(`<!-- ${name}:start -->`);
    const end = readme.indexOf(`<!-- ${name}:end -->`);
    expect(start, name).to.be.greaterThan(-1);
    return readme.slice(start, end);
  };
  const codes = (text: string): string[] => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);

  it('decides its examples as the matcher does', () => {
    const rows = block('readme-mode-examples')
      .split('\n')
      .filter((l) => l.startsWith('|'))
      .slice(2)
      .map((l) => l.split('|').slice(1, -1).map((c) => c.trim()));
    expect(rows.length).to.be.greaterThan(5);
    for (const [mode, exc, inc, pathCell, indexedCell, decidedBy] of rows as string[][]) {
      const lists = mode === 'blacklist'
        ? { blacklist_exclude: codes(exc!), blacklist_include: codes(inc!), whitelist_include: [], whitelist_exclude: [] }
        : { blacklist_exclude: [], blacklist_include: [], whitelist_include: codes(inc!), whitelist_exclude: codes(exc!) };
      const m = compileFilter(normaliseConfig({ mode: mode as FilterMode, exclude: [], include: [], ...lists }));
      const d = m.decide(codes(pathCell!)[0]!);
      expect(d.indexed, pathCell).to.equal(indexedCell === 'yes');
      expect(d.decidedBy?.pattern ?? null, pathCell).to.equal(codes(decidedBy!)[0] ?? null);
    }
  });

  it('names only real defaults', () => {
    const d = defaultFilterConfig();
    const all = new Set([...d.blacklist_exclude, ...d.blacklist_include, ...d.whitelist_include, ...d.whitelist_exclude]);
    const named = codes(block('readme-defaults'));
    expect(named.length).to.be.greaterThan(30);
    for (const p of named) expect(all.has(p), p).to.equal(true);
  });
});
