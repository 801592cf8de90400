/**
 * The per-file part of a no-change restart, on a synthetic tree of N small files in nested folders (generated in
 * a temporary folder, removed after): the watcher's first scan (WatcherCore, real chokidar, as at a restart: it
 * must be ready before the reconcile starts) and the reconcile's walk (the watcher core's walk() once its watch is
 * up; a build without it: walkFiles), each in a fresh process: CPU seconds, the RSS they add, and the inotify
 * watches held. With
 * --compare, another build's dist/ is measured the same way, alternating, so both see the same load.
 *
 *   npm run bench:watch-start -- [--files N] [--rounds N] [--compare OTHER/dist]
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as ProtocolModule from '../src/actors/watcher/protocol.js';
import type * as CoreModule from '../src/actors/watcher/watcher-core.js';
import type * as DefaultsModule from '../src/filters/defaults.js';
import type * as MatcherModule from '../src/filters/matcher.js';
import type * as WalkModule from '../src/filters/walk.js';
import { positiveInt, readBenchArgs, type BenchCommand, type BenchOptions } from './lib/cli.js';
import { markdownTable } from './lib/search-bench.js';

const CLI = {
  command: 'npm run bench:watch-start --',
  about: "A no-change restart's per-file cost on a synthetic tree: the watcher's first scan and the reconcile's walk.",
  options: {
    files: { type: 'string', value: 'N', default: '100000', description: 'files in the generated tree (100 per folder, folders nested 3 deep)' },
    rounds: { type: 'string', value: 'N', default: '2', description: 'measurements per build (medians printed)' },
    compare: { type: 'string', value: 'DIST', description: "another build's dist/ folder, measured alternately" },
    child: { type: 'string', value: 'DIST:TREE', description: '(internal) measure one build on one tree and print JSON' },
  },
} satisfies BenchCommand<BenchOptions>;

interface Measured {
  watchCpuSeconds: number;
  watchRssMb: number;
  inotifyWatches: number;
  walkCpuSeconds: number;
  walkedFiles: number;
}

const OWN_DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const args = readBenchArgs(CLI, ({ values }) => ({
  files: positiveInt('files', values.files!),
  rounds: positiveInt('rounds', values.rounds!),
  compare: values.compare === undefined ? null : path.resolve(values.compare),
  child: values.child ?? null,
}));

const cpu = (from: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1e6;
};

/** The inotify watches this process holds (one `inotify wd:` line per watch in each inotify fd's fdinfo). */
async function inotifyWatches(): Promise<number> {
  let watches = 0;
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (!target.includes('inotify')) continue;
    const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8').catch(() => '');
    watches += info.split('\n').filter((line) => line.startsWith('inotify wd:')).length;
  }
  return watches;
}

/** In the child: one build's watcher first scan, then its reconcile walk, over the tree. */
async function measure(dist: string, tree: string): Promise<Measured> {
  const load = <T>(module: string): Promise<T> => import(path.join(dist, 'src', module)) as Promise<T>;
  const { WatcherCore } = await load<typeof CoreModule>('actors/watcher/watcher-core.js');
  const { defaultFilterConfig } = await load<typeof DefaultsModule>('filters/defaults.js');
  const { DEFAULT_WATCHER_TUNING } = await load<typeof ProtocolModule>('actors/watcher/protocol.js');
  const { walkFiles } = await load<typeof WalkModule>('filters/walk.js');
  const { compileFilter } = await load<typeof MatcherModule>('filters/matcher.js');
  const gc = (globalThis as { gc?: () => void }).gc;

  gc?.();
  const rss0 = process.memoryUsage().rss;
  const watchFrom = process.cpuUsage();
  const core = new WatcherCore({ emit: () => undefined, ownDataDir: path.join(tree, '..', 'no-data-dir'), filters: defaultFilterConfig(), tuning: DEFAULT_WATCHER_TUNING });
  await core.watch({ jobId: 1, root: tree, recursive: true, filePattern: null }, { catchUpSince: Date.now() });
  const watchCpuSeconds = cpu(watchFrom);
  gc?.();
  const watchRssMb = (process.memoryUsage().rss - rss0) / 2 ** 20;
  const watches = await inotifyWatches();

  const walkFrom = process.cpuUsage();
  let walkedFiles = 0;
  // The reconcile's walk as the build makes it: on the watcher's thread (its core's walk()), or on the main thread.
  const coreWalk = (core as Partial<Pick<typeof core, 'walk'>>).walk?.bind(core);
  if (coreWalk) walkedFiles = (await coreWalk(1)).paths.length;
  else for await (const _file of walkFiles(tree, { matcher: compileFilter(defaultFilterConfig()), relativeTo: tree })) walkedFiles++;
  const walkCpuSeconds = cpu(walkFrom);
  await core.close();
  return { watchCpuSeconds, watchRssMb, inotifyWatches: watches, walkCpuSeconds, walkedFiles };
}

async function generate(files: number): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'filesift-bench-watch-start-'));
  const folders = Math.ceil(files / 100);
  for (let f = 0, n = 0; f < folders; f++) {
    const folder = path.join(root, `a${Math.floor(f / 100)}`, `b${Math.floor(f / 10) % 10}`, `c${f % 10}`);
    await mkdir(folder, { recursive: true });
    const names = Array.from({ length: Math.min(100, files - n) }, (_, i) => path.join(folder, `note-${n + i}.txt`));
    await Promise.all(names.map((name, i) => writeFile(name, `note ${n + i}: a small file\n`)));
    n += names.length;
  }
  return root;
}

function child(dist: string, tree: string): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', `${dist}:${tree}`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    proc.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Measured) : reject(new Error(`measuring ${dist} exited with ${code}`))));
  });
}

async function main(): Promise<void> {
  if (args.child) {
    const [dist, tree] = args.child.split(':') as [string, string];
    process.stdout.write(JSON.stringify(await measure(dist, tree)));
    return;
  }
  const load = (): string => os.loadavg().map((l) => l.toFixed(2)).join(', ');
  const builds: [string, string][] = [['this build', OWN_DIST], ...(args.compare ? [['compared', args.compare] as [string, string]] : [])];
  const tree = await generate(args.files);
  try {
    console.log(`${args.files} files in ${Math.ceil(args.files / 100)} folders; ${os.cpus().length} cores; load ${load()}`);
    const results = new Map<string, Measured[]>(builds.map(([name]) => [name, []]));
    for (let round = 0; round < args.rounds; round++) {
      for (const [name, dist] of builds) {
        const m = await child(dist, tree);
        results.get(name)!.push(m);
        console.log(`  ${name}: watcher ${m.watchCpuSeconds.toFixed(2)} CPU-s, +${m.watchRssMb.toFixed(0)} MB, ${m.inotifyWatches} watches; walk ${m.walkCpuSeconds.toFixed(2)} CPU-s; load ${load()}`);
      }
    }
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const perFile = (seconds: number): string => ((seconds * 1e6) / args.files).toFixed(0);
    console.log(`\n${markdownTable(
      ['build', 'watcher first scan, CPU-s', 'µs per file', 'RSS added (MB)', 'inotify watches', 'reconcile walk, CPU-s', 'µs per file'],
      builds.map(([name]) => {
        const rs = results.get(name)!;
        const watch = median(rs.map((r) => r.watchCpuSeconds));
        const walk = median(rs.map((r) => r.walkCpuSeconds));
        return [name, watch.toFixed(2), perFile(watch), median(rs.map((r) => r.watchRssMb)).toFixed(0), String(median(rs.map((r) => r.inotifyWatches))), walk.toFixed(2), perFile(walk)];
      }),
    )}`);
    console.log(`\nmedians of ${args.rounds} round(s); load average at the end: ${load()}`);
  } finally {
    await rm(tree, { recursive: true, force: true });
  }
}

await main();
