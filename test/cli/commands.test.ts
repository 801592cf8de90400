/**
 * The `filesift` commands as a person runs them: a real process talking to a real service over HTTP and its
 * event stream. Output into a pipe (no progress bar: a line every few seconds), exit codes, one-line errors.
 */
import { expect } from 'chai';
import { execFile, spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { eventually } from '../helpers/assert.js';
import { tempTree, type TempTree } from '../helpers/files.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { repoRoot } from '../helpers/shared.js';

const cli = path.join(repoRoot, 'dist', 'src', 'cli.js');

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `filesift ARGS` to its end, with only the given environment (and PATH). */
function filesift(args: string[], env: Record<string, string> = {}, cwd = repoRoot): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const oneLine = (text: string) => text.trim().split('\n').length === 1;

/** A port nothing listens on (it was free a moment ago). */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

describe('filesift commands (a real process against a real service)', function () {
  this.timeout(120_000);
  let t: TestService;
  let tree: TempTree;
  let env: Record<string, string>;

  before(async () => {
    [t, tree] = await Promise.all([
      startTestService('pglite'),
      tempTree({
        'notes/garden.md': '# Garden plans\n\nPlant tomatoes and basil along the south fence in May.',
        'notes/bakery.txt': 'Quarterly revenue of the bakery grew because sourdough bread sold well.',
        'letters/keeper.md': '# Letter to the keeper\n\nThe lighthouse lamp needs a new wick before the winter storms.',
        'broken.pdf': '%PDF-1.7\nnot really a pdf',
      }),
    ]);
    env = { FILESIFT_URL: t.url };
  });
  after(async () => {
    await t.destroy();
    await tree.remove();
  });

  it('prints the help on stdout for a bare filesift (never starts a second server), and the version', async () => {
    const bare = await filesift([]);
    expect(bare.code).to.equal(0);
    expect(bare.stdout).to.match(/^Usage: filesift COMMAND/);
    for (const command of ['serve', 'search', 'status', 'watch', 'unwatch', 'index', 'queue', 'files', 'pull-model', 'completion']) {
      expect(bare.stdout).to.match(new RegExp(`^  ${command} `, 'm'));
    }
    expect(bare.stdout).to.match(/Exit codes: 0 done; 1 .*\n.*2 a wrong command line; 130 interrupted/);
    expect(bare.stderr).to.equal('');
    const version = await filesift(['--version']);
    expect(version.stdout.trim()).to.equal(t.config.version);
    const help = await filesift(['watch', '--help']);
    expect(help.code).to.equal(0);
    expect(help.stdout).to.match(/^Usage: filesift watch DIR \[options\]/);
  });

  it('says what is wrong with a command line in one line, exit code 2', async () => {
    const cases: [string[], RegExp][] = [
      [['frobnicate'], /^filesift: unknown command 'frobnicate'; the commands are serve, search/],
      [['search'], /^filesift search: missing QUERY \(filesift search --help\)$/m],
      [['search', 'x', '--colour', 'red'], /^filesift search: unknown option '--colour'/],
      [['search', 'x', '--mode', 'fuzzy'], /^filesift search: --mode must be one of hybrid, keyword, semantic, got 'fuzzy'/],
      [['search', 'x', '--limit', 'ten'], /^filesift search: --limit must be a positive integer, got 'ten'/],
      [['queue', 'flush'], /^filesift queue: unknown action 'flush'; say ls, pause, resume/],
      [['completion', 'fish'], /^filesift completion: no completion for 'fish'; say bash or zsh/],
    ];
    for (const [args, message] of cases) {
      const r = await filesift(args, env);
      expect(r.code, args.join(' ')).to.equal(2);
      expect(r.stderr, args.join(' ')).to.match(message);
      expect(oneLine(r.stderr), r.stderr).to.equal(true);
      expect(r.stdout).to.equal('');
    }
  });

  it('says in one line that the service cannot be reached, exit code 1', async () => {
    const port = await closedPort();
    const r = await filesift(['status'], { FILESIFT_URL: `http://127.0.0.1:${port}` });
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/^filesift: cannot reach the service at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\): is it running\? Start it with 'filesift serve'$/m);
    expect(oneLine(r.stderr)).to.equal(true);
  });

  it('watches a folder with progress until its scan completes, lists its failures, and unwatches it', async () => {
    const r = await filesift(['watch', tree.root], env);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr).to.match(new RegExp(`^Watching ${tree.root} \\(job \\d+\\)`, 'm'));
    expect(r.stderr).to.contain(`${tree.root}: started`);
    expect(r.stdout).to.match(/^Done: 4 of 4 files in \d+s \(3 indexed, 0 unchanged, 1 failed, 0 removed\)\.$/m);
    expect(r.stdout).to.match(new RegExp(`^  ${tree.path('broken.pdf')}: corrupt: `, 'm'));
    const jobs = (await t.request('GET', '/api/watch/jobs')).body.jobs as { path: string; last_scan: string | null }[];
    expect(jobs.find((j) => j.path === tree.root)?.last_scan).to.be.a('string');

    const again = await filesift(['watch', tree.root], env);
    expect(again.code).to.equal(1);
    expect(again.stderr).to.match(/^filesift: Directory .* is already watched .*\(already_watched\)$/m);

    const status = await filesift(['status'], env);
    expect(status.code).to.equal(0);
    expect(status.stdout).to.match(/^filesift \S+ at http:\/\/127\.0\.0\.1:\d+: ok, up /);
    expect(status.stdout).to.match(/^index +3 files \(\d+ by name only\), .*1 failed/m);
    expect(status.stdout).to.contain(tree.root);
  });

  it('searches: readable columns by default, the whole answer with --json, narrowed by --ext and --dir', async () => {
    const columns = await filesift(['search', 'lighthouse', 'lamp', '--mode', 'keyword'], env);
    expect(columns.code, columns.stderr).to.equal(0);
    const [header, first, ...rest] = columns.stdout.trimEnd().split('\n');
    expect(header).to.match(/^SCORE +MODIFIED +SIZE +PATH$/);
    expect(first).to.match(new RegExp(`^1\\.00 +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +\\d+ B +${tree.path('letters/keeper.md')}$`));
    expect(rest).to.deep.equal([]);

    const json = await filesift(['search', 'tomatoes', '--json'], env);
    const answer = JSON.parse(json.stdout) as { results: { file: { file_path: string } }[]; mode: string };
    expect(answer.mode).to.equal('hybrid');
    expect(answer.results[0]!.file.file_path).to.equal(tree.path('notes/garden.md'));

    const md = await filesift(['search', 'the', 'keeper', 'bread', '--ext', 'txt', '--mode', 'keyword', '--json'], env);
    expect((JSON.parse(md.stdout) as typeof answer).results.map((r) => r.file.file_path)).to.deep.equal([tree.path('notes/bakery.txt')]);
    // --dir relative to the working directory.
    const scoped = await filesift(['search', 'keeper', 'bread', '--dir', 'letters', '--mode', 'keyword', '--json'], env, tree.root);
    expect((JSON.parse(scoped.stdout) as typeof answer).results.map((r) => r.file.file_path)).to.deep.equal([tree.path('letters/keeper.md')]);

    const none = await filesift(['search', 'zeppelin', '--mode', 'keyword'], env);
    expect(none).to.include({ code: 0, stdout: '' });
    expect(none.stderr).to.match(/^no results for 'zeppelin' \(keyword\)$/m);
  });

  it("shows a file's record, its text, and says so in one line when there is no such file", async () => {
    const [known] = await t.service.store.api.files.known([tree.path('notes/garden.md')]);
    const record = await filesift(['files', String(known!.id)], env);
    expect(record.code).to.equal(0);
    expect(record.stdout).to.match(new RegExp(`^path +${tree.path('notes/garden.md')}$`, 'm'));
    expect(record.stdout).to.match(/^title +Garden plans$/m);
    const text = await filesift(['files', String(known!.id), '--text'], env);
    expect(text.stdout).to.contain('Plant tomatoes and basil along the south fence in May.');
    const [broken] = await t.service.store.api.files.known([tree.path('broken.pdf')]);
    expect((await filesift(['files', String(broken!.id)], env)).stdout).to.match(/^status +failed \(corrupt\): /m);
    const missing = await filesift(['files', '999999'], env);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.equal('filesift: No file with id 999999 (not_found)\n');
  });

  it('indexes a file or a folder once and follows the run', async () => {
    const file = await filesift(['index', 'notes/bakery.txt'], env, tree.root);
    expect(file.code, file.stderr).to.equal(0);
    expect(file.stdout).to.match(/^Done: 1 of 1 files in \d+s \(1 indexed,/m);
    const folder = await filesift(['index', tree.path('notes'), '--changed'], env);
    expect(folder.stdout).to.match(/^Done: 2 of 2 files in \d+s \(0 indexed, 2 unchanged, 0 failed, 0 removed\)\.$/m);
    const missing = await filesift(['index', tree.path('nope.txt')], env);
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(/^filesift: file_path '.*nope\.txt' does not exist \(invalid_path\)$/m);
  });

  it('pauses, resumes and lists the queue', async () => {
    const paused = await filesift(['queue', 'pause'], env);
    expect(paused.stdout).to.match(/^queue paused by hand: 0 items/);
    expect((await t.request('GET', '/api/queue/status')).body.manually_paused).to.equal(true);
    const resumed = await filesift(['queue', 'resume'], env);
    expect(resumed.stdout).to.match(/^queue running: /);
    const ls = await filesift(['queue', '--json'], env);
    expect(JSON.parse(ls.stdout)).to.have.keys('status', 'items');
  });

  it('unwatches a folder by its path or its id', async () => {
    const r = await filesift(['unwatch', '.'], env, tree.root);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.match(new RegExp(`^Stopped watching ${tree.root} \\(job \\d+\\); 4 indexed file\\(s\\) removed`)); // the failed one too
    const unknown = await filesift(['unwatch', '4242'], env);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr).to.equal('filesift: No watch job with id 4242 (not_found)\n');
  });

  it('prints bash and zsh completion scripts that complete commands, options, their values and folders', async () => {
    const bash = (await filesift(['completion', 'bash'])).stdout;
    const complete = async (words: string[]) => {
      const script = `${bash}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _filesift; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const { stdout } = await promisify(execFile)('bash', ['-c', script], { cwd: tree.root });
      return stdout.trim().split('\n').filter(Boolean);
    };
    expect(await complete(['filesift', 'se'])).to.deep.equal(['serve', 'search']);
    expect(await complete(['filesift', 'search', 'x', '--mo'])).to.deep.equal(['--mode']);
    expect(await complete(['filesift', 'search', 'x', '--mode', 'k'])).to.deep.equal(['keyword']);
    expect(await complete(['filesift', 'watch', 'no'])).to.deep.equal(['notes']);
    expect(await complete(['filesift', 'queue', 'p'])).to.deep.equal(['pause']);

    const zsh = (await filesift(['completion', 'zsh'])).stdout;
    expect(zsh.startsWith('#compdef filesift\n')).to.equal(true);
    expect(zsh).to.contain("'--mode[hybrid, keyword, semantic]:MODE:(hybrid keyword semantic)'");
    expect(zsh).to.contain("':DIR:_files -/'");
    await promisify(execFile)('zsh', ['-n', '-c', zsh]); // it parses
  });

  it('asks for the token in one line when the service wants one, and works with it', async () => {
    const guarded = await startTestService('pglite', { FILESIFT_API_TOKEN: 'cli-token-9' });
    try {
      const without = await filesift(['queue'], { FILESIFT_URL: guarded.url });
      expect(without.code).to.equal(1);
      expect(without.stderr).to.equal("filesift: Missing or invalid bearer token: give the service's token with --token or FILESIFT_API_TOKEN\n");
      expect((await filesift(['queue', '--token', 'cli-token-9'], { FILESIFT_URL: guarded.url })).code).to.equal(0);
      expect((await filesift(['status'], { FILESIFT_URL: guarded.url, FILESIFT_API_TOKEN: 'cli-token-9' })).code).to.equal(0);
    } finally {
      await guarded.destroy();
    }
  });

  it('Ctrl-C stops following a scan, exit 130, and the scan goes on in the service', async () => {
    // A worker that never finishes hang.txt keeps the scan going for as long as the test needs.
    const slow = await startTestService('pglite', {}, undefined, { pipelineWorker: path.join(repoRoot, 'dist', 'test', 'fixtures', 'misbehaving.worker.js') });
    const folder = await tempTree({ 'hang.txt': 'never finishes', 'a.txt': 'alpha' });
    try {
      const child = spawn(process.execPath, [cli, 'watch', folder.root], { env: { PATH: process.env.PATH ?? '', FILESIFT_URL: slow.url }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      await eventually(() => stderr.includes(`${folder.root}: started`));
      child.kill('SIGINT');
      expect(await exited).to.equal(130);
      expect(stderr).to.match(/^Stopped following; the work goes on in the service \(filesift status shows it\)\.$/m);
      const runs = (await slow.request('GET', '/api/index/runs')).body.runs as { kind: string; path: string }[];
      expect(runs.some((r) => r.kind === 'watch' && r.path === folder.root)).to.equal(true);
    } finally {
      await slow.destroy();
      await folder.remove();
    }
  });
});
