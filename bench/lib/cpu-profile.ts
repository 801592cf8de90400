/**
 * Reads the V8 CPU profiles `node --cpu-prof` writes (one `.cpuprofile` per thread) and says where each thread's
 * CPU went: by code unit (a package, one of our modules, PGlite's WebAssembly, V8's garbage collector) and by
 * function. Self time only: a sample counts for the function on top of the stack; V8 samples wall time, so a
 * thread that waits inside JavaScript (piscina's Atomics.wait between tasks) is left out by name. Used by bench:corpus
 * --cpu-prof; also runnable on its own: node dist/bench/lib/cpu-profile.js DIR [TOP].
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ThreadProfile {
  file: string;
  /** The thread's role, guessed from the code it ran (main, store, pipeline, watcher, other). */
  role: string;
  /** Seconds of samples that were not idle. */
  busySeconds: number;
  units: [string, number][];
  functions: [string, number][];
}

/** Where a frame's code lives, coarse: node_modules/<package>, src/<folder>, a node built-in, wasm, V8. */
function unitOf(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : name.startsWith('wasm') || name.startsWith('$') ? 'wasm' : '(native)';
  if (url.startsWith('wasm://')) return 'wasm';
  if (url.startsWith('node:')) return 'node built-ins';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const dist = url.indexOf('/dist/');
  if (dist >= 0) {
    const parts = url.slice(dist + '/dist/'.length).split('/');
    return parts.slice(0, Math.min(3, parts.length - 1)).join('/') || parts.join('/');
  }
  return url;
}

function roleOf(units: Map<string, number>, threadId: string): string {
  if (threadId === '0') return 'main';
  const has = (prefix: string): boolean => [...units.keys()].some((u) => u.startsWith(prefix));
  if (has('@electric-sql/pglite') || has('wasm')) return 'store';
  if (has('src/pipeline') || has('workers')) return 'pipeline';
  if (has('chokidar') || has('src/actors/watcher')) return 'watcher';
  return 'other';
}

const top = (map: Map<string, number>, n: number): [string, number][] => [...map].sort((a, b) => b[1] - a[1]).slice(0, n);

export function readThreadProfile(file: string, n = 12): ThreadProfile {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const units = new Map<string, number>();
  const functions = new Map<string, number>();
  let busy = 0;
  // timeDeltas[i] is the time from sample i-1 to sample i: it is spent in what sample i shows.
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    // Idle, or a piscina thread blocked in Atomics.wait for its next task (the sample shows the JS frame that waits).
    if (functionName === '(idle)' || (functionName === 'atomicsWaitLoop' && url.includes('piscina'))) continue;
    const us = Math.max(0, profile.timeDeltas[i] ?? 0);
    busy += us;
    const unit = unitOf(url, functionName);
    units.set(unit, (units.get(unit) ?? 0) + us);
    const label = `${functionName || '(anonymous)'} ${url ? `${unit}:${lineNumber + 1}` : ''}`.trim();
    functions.set(label, (functions.get(label) ?? 0) + us);
  }
  const threadId = /\.\d+\.(\d+)\.\d+\.cpuprofile$/.exec(path.basename(file))?.[1] ?? '?';
  const seconds = (pairs: [string, number][]): [string, number][] => pairs.map(([k, v]) => [k, v / 1e6]);
  return { file, role: roleOf(units, threadId), busySeconds: busy / 1e6, units: seconds(top(units, n)), functions: seconds(top(functions, n)) };
}

/** Every thread's profile in dir, busiest first. */
export function readProfiles(dir: string, n = 12): ThreadProfile[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => readThreadProfile(path.join(dir, f), n))
    .sort((a, b) => b.busySeconds - a.busySeconds);
}

/** A plain-text report: per thread, its busy seconds, then its top code units and functions with their share. */
export function formatProfiles(profiles: ThreadProfile[]): string {
  const pct = (v: number, total: number): string => `${((100 * v) / (total || 1)).toFixed(1)} %`;
  const lines: string[] = [];
  const total = profiles.reduce((s, p) => s + p.busySeconds, 0);
  lines.push(`CPU profiles: ${profiles.length} threads, ${total.toFixed(1)} s sampled busy (the profiler's own threads not included)`);
  for (const p of profiles) {
    lines.push('', `${p.role} (${path.basename(p.file)}): ${p.busySeconds.toFixed(1)} s`);
    lines.push('  by code unit: ' + p.units.map(([u, s]) => `${u} ${s.toFixed(1)} s (${pct(s, p.busySeconds)})`).join('; '));
    for (const [f, s] of p.functions) lines.push(`    ${s.toFixed(2).padStart(7)} s ${pct(s, p.busySeconds).padStart(7)}  ${f}`);
  }
  return lines.join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [dir, n] = process.argv.slice(2);
  if (!dir) throw new Error('usage: node dist/bench/lib/cpu-profile.js DIR [TOP]');
  console.log(formatProfiles(readProfiles(dir, n ? Number(n) : 12)));
}
