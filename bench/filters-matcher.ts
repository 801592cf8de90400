/**
 * Filter speed: decisions per second over a synthetic 100k-path tree (a home folder mix: documents,
 * projects with node_modules and .git, sources, junk, secrets) with the default configuration, and walk
 * throughput over a real tree on disk: the walk a scan makes, and the count of files a scan runs ahead of it.
 *
 *   npm run bench:filters                  (BENCH_PATHS=100000, BENCH_WALK_FILES=20000 by default)
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import picomatch from 'picomatch';
import { setMode } from '../src/filters/config.js';
import { defaultFilterConfig } from '../src/filters/defaults.js';
import { compileFilter } from '../src/filters/matcher.js';
import type { FilterMatcher } from '../src/filters/matcher.js';
import { parsePattern, PICOMATCH_OPTIONS } from '../src/filters/pattern.js';
import { countFiles, walkFiles } from '../src/filters/walk.js';
import { seededRandom } from '../scripts/lib/seeded-random.js';
import { readBenchArgs } from './lib/cli.js';

readBenchArgs({
  command: 'npm run bench:filters --',
  about: 'Filter decisions per second over a synthetic 100k-path tree, and walk throughput over a real tree.',
  options: {},
  notes: ['Sizes come from the environment: BENCH_PATHS (default 100000), BENCH_WALK_FILES (default 20000).'],
});
const PATHS = Number(process.env.BENCH_PATHS ?? 100_000);
const WALK_FILES = Number(process.env.BENCH_WALK_FILES ?? 20_000);

function syntheticPaths(n: number): string[] {
  const r = seededRandom(42);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const words = ['Projects', 'Archive', '2023', '2024', 'Clients', 'Acme', 'Taxes', 'Photos', 'Notes', 'Research', 'Drafts', 'Shared', 'Reports', 'Build', 'Q1', 'Q2'];
  const docs = ['.pdf', '.docx', '.md', '.txt', '.xlsx', '.pptx', '.jpg', '.png', '.odt', '.csv'];
  const src = ['.ts', '.js', '.py', '.rs', '.go', '.java', '.c', '.h', '.css', '.html'];
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const depth = 1 + Math.floor(r() * 5);
    const dirs = Array.from({ length: depth }, () => pick(words));
    const roll = r();
    if (roll < 0.45) out.push(`${dirs.join('/')}/document-${i}${pick(docs)}`);
    else if (roll < 0.65) out.push(`code/app${i % 50}/node_modules/pkg${i % 300}/lib/${pick(['index', 'util', 'README'])}${pick(['.js', '.md', '.d.ts'])}`);
    else if (roll < 0.72) out.push(`code/app${i % 50}/.git/objects/${(i % 256).toString(16)}/${i.toString(16)}`);
    else if (roll < 0.87) out.push(`code/app${i % 50}/src/${pick(['core', 'ui', 'api'])}/module${i}${pick(src)}`);
    else if (roll < 0.94) out.push(`${dirs.join('/')}/${pick(['.DS_Store', 'Thumbs.db', `.file${i}.swp`, `notes${i}.md~`, `~$doc${i}.docx`, 'desktop.ini'])}`);
    else out.push(`${dirs.join('/')}/${pick(['.env', '.env.local', '.env.example', `key${i}.pem`, 'id_rsa', `cert${i}.p12`, 'login.keychain-db'])}`);
  }
  return out;
}

/** The obvious implementation, for comparison: every pattern, every level, no combining, no cache. */
function naiveMatcher(exclude: readonly string[], include: readonly string[]): (p: string) => boolean {
  const compile = (list: readonly string[]) =>
    list.map((s) => {
      const r = parsePattern(s);
      if (!r.ok) throw new Error(r.reason);
      return { parsed: r.parsed, test: picomatch(r.parsed.glob, PICOMATCH_OPTIONS) };
    });
  const exc = compile(exclude);
  const inc = compile(include);
  const any = (list: typeof exc, level: string, name: string, isDir: boolean) =>
    list.some((p) => (!p.parsed.directoryOnly || isDir) && p.test(p.parsed.nameOnly ? name : level));
  return (p: string) => {
    const parts = p.split('/');
    for (let i = 0; i < parts.length; i++) {
      const level = parts.slice(0, i + 1).join('/');
      const isDir = i < parts.length - 1;
      if (any(exc, level, parts[i] as string, isDir) && !any(inc, level, parts[i] as string, isDir)) return false;
    }
    return true;
  };
}

function rate(label: string, paths: readonly string[], fn: (p: string) => unknown): number {
  const t0 = performance.now();
  let sink = 0;
  for (const p of paths) if (fn(p)) sink++;
  const ms = performance.now() - t0;
  const perSecond = (paths.length / ms) * 1000;
  console.log(`${label.padEnd(58)} ${(perSecond / 1000).toFixed(0).padStart(7)}k decisions/s  (${ms.toFixed(0)} ms, ${sink} true)`);
  return perSecond;
}

const cpuMs = (u: NodeJS.CpuUsage): number => (u.user + u.system) / 1000;

async function benchWalk(): Promise<void> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'filesift-bench-walk-'));
  try {
    const paths = syntheticPaths(WALK_FILES);
    const t0 = performance.now();
    const dirs = new Set(paths.map((p) => path.dirname(p)));
    for (const d of dirs) await fs.mkdir(path.join(root, d), { recursive: true });
    for (let i = 0; i < paths.length; i += 256) {
      await Promise.all(paths.slice(i, i + 256).map((p) => fs.writeFile(path.join(root, p), 'x')));
    }
    console.log(`\nwalk: created ${paths.length} files in ${dirs.size} folders in ${(performance.now() - t0).toFixed(0)} ms`);
    const rows: string[][] = [];
    for (const [label, matcher] of [
      ['no filter', undefined],
      ['default blacklist', compileFilter(defaultFilterConfig())],
    ] as [string, FilterMatcher | undefined][]) {
      // The walk a scan makes (a stat per file), then the count a scan runs ahead of it (folder listings only).
      const cpu0 = process.cpuUsage();
      const t1 = performance.now();
      const walk = walkFiles(root, { matcher });
      let n = 0;
      let summary;
      for (;;) {
        const s = await walk.next();
        if (s.done) {
          summary = s.value;
          break;
        }
        n++;
      }
      const walkMs = performance.now() - t1;
      const walkCpu = cpuMs(process.cpuUsage(cpu0));
      const cpu1 = process.cpuUsage();
      const t2 = performance.now();
      const counted = await countFiles(root, { matcher });
      const countMs = performance.now() - t2;
      const countCpu = cpuMs(process.cpuUsage(cpu1));
      if (counted.files !== n) throw new Error(`countFiles found ${counted.files} files, the walk ${n}`);
      rows.push([label, 'walk (stat each file)', String(n), String(summary.directories), walkMs.toFixed(0), walkCpu.toFixed(0), ((n / walkMs) * 1000).toFixed(0), 'baseline']);
      rows.push([label, 'count (listings only)', String(counted.files), String(counted.directories), countMs.toFixed(0), countCpu.toFixed(0), ((n / countMs) * 1000).toFixed(0), `${(countCpu / walkCpu).toFixed(2)}× CPU`]);
    }
    console.log(`\n| filter | pass | files | folders read | wall ms | CPU ms | files/s | vs walk |\n|---|---|---|---|---|---|---|---|`);
    for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const paths = syntheticPaths(PATHS);
  console.log(`filters bench: ${paths.length} synthetic paths, node ${process.version}, ${os.cpus()[0]?.model ?? 'cpu'}`);
  const cfg = defaultFilterConfig();
  console.log(`default config: ${cfg.exclude.length} exclude + ${cfg.include.length} include patterns`);

  // Warm the JIT on other paths and a throwaway matcher, so "cold" below means a cold folder cache only.
  const warm = compileFilter(cfg);
  for (const p of syntheticPaths(20_000).map((p) => `warmup/${p}`)) warm.decide(p);

  let t0 = performance.now();
  const m = compileFilter(cfg);
  console.log(`compileFilter(default): ${(performance.now() - t0).toFixed(1)} ms`);

  rate('isIndexed, cold folder cache (first pass)', paths, (p) => m.isIndexed(p));
  rate('isIndexed, warm folder cache (second pass)', paths, (p) => m.isIndexed(p));
  rate('decide (with explanation), warm', paths, (p) => m.decide(p).indexed);
  const uncached = compileFilter(cfg, { cacheSize: 1 });
  rate('isIndexed, no folder cache (every level evaluated)', paths, (p) => uncached.isIndexed(p));
  const white = compileFilter(setMode(cfg, 'whitelist').config);
  rate('isIndexed, default whitelist, cold', paths, (p) => white.isIndexed(p));
  t0 = performance.now();
  const naive = naiveMatcher(cfg.exclude, cfg.include);
  console.log(`naive compile: ${(performance.now() - t0).toFixed(1)} ms`);
  const sample = paths.slice(0, Math.min(paths.length, 20_000));
  rate(`naive per-pattern picomatch loop (${sample.length} paths)`, sample, naive);
  let disagreements = 0;
  for (const p of sample) if (naive(p) !== m.isIndexed(p)) disagreements++;
  console.log(`naive vs compiled disagreements on ${sample.length} paths: ${disagreements}`);

  await benchWalk();
}

await main();
