/**
 * A running process as Linux's /proc sees it, for benchmarks that measure another program (bench/corpus.ts): its
 * CPU time (every thread, and its children once waited for), its peak resident memory, and the resident memory of
 * its whole process tree (a program that runs helpers, as Recoll runs its filters). Linux only.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ: 100 on every Linux build that matters). */
const TICKS = 100;

interface Stat {
  ppid: number;
  /** user + system seconds of every thread, and of the children it has waited for. */
  cpuSeconds: number;
  rssPages: number;
}

function readStat(pid: number): Stat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) may hold spaces and parentheses: the fields after it start at the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const n = (field: number): number => Number(fields[field - 3]);
  return { ppid: n(4), cpuSeconds: (n(14) + n(15) + n(16) + n(17)) / TICKS, rssPages: n(24) };
}

/** user + system CPU seconds of the process (all its threads, and its waited-for children); null once gone. */
export function cpuSeconds(pid: number): number | null {
  return readStat(pid)?.cpuSeconds ?? null;
}

/**
 * user + system CPU seconds of the process's live threads except those named `skipThread` (e.g. V8's profiler
 * threads, `v8:ProfEvntProc`, which spin while `--cpu-prof` samples); null once gone.
 */
export function cpuSecondsExcept(pid: number, skipThread: string): number | null {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  let ticks = 0;
  for (const tid of tasks) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      if (text.slice(text.indexOf('(') + 1, text.lastIndexOf(')')) === skipThread) continue;
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[14 - 3]) + Number(fields[15 - 3]);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return ticks / TICKS;
}

/** The process's peak resident set (VmHWM) in bytes; null once gone. */
export function peakRssBytes(pid: number): number | null {
  try {
    const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** The process's resident set now (VmRSS) in bytes; null once gone. */
export function rssBytes(pid: number): number | null {
  const stat = readStat(pid);
  return stat ? stat.rssPages * PAGE : null;
}

/** The pid and every live descendant of it. */
function tree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (!stat) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(Number(name));
    children.set(stat.ppid, list);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

const PAGE = 4096;

/**
 * user + system CPU seconds of a process tree: the root's (with the children it has waited for) and each live
 * descendant's. For a PostgreSQL server's postmaster: its backends while they run, and once they end and are
 * reaped, through the postmaster's count of its waited-for children. Null once the root is gone.
 */
export function treeCpuSeconds(root: number): number | null {
  const own = readStat(root);
  if (!own) return null;
  return tree(root).reduce((sum, pid) => sum + (pid === root ? own.cpuSeconds : readStat(pid)?.cpuSeconds ?? 0), 0);
}

/** The parent of a process (e.g. a PostgreSQL backend's postmaster); null once gone. */
export function parentPid(pid: number): number | null {
  return readStat(pid)?.ppid ?? null;
}

/**
 * Samples the resident memory of a process tree every `intervalMs` until stopped: the peak of the sum (helpers
 * that live shorter than the interval can be missed; the root's own VmHWM has no such gap).
 */
export function sampleTreeRss(root: number, intervalMs = 200): { stop(): number } {
  let peak = 0;
  const sample = (): void => {
    let sum = 0;
    for (const pid of tree(root)) sum += (readStat(pid)?.rssPages ?? 0) * PAGE;
    peak = Math.max(peak, sum);
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

/**
 * Waits until `done()` holds, then watches the process's CPU time until it has been quiet (under `busyCoreShare` of
 * one core: low, as a loaded machine starves a busy process) for `quietMs`: answers the moment it last worked and its
 * CPU seconds then, so the quiet tail is not counted. `done()` is asked only until it holds: its own requests to
 * the service cost CPU there, which, counted as work, pushed "idle" seconds later at every check.
 */
export async function untilQuiet(
  pid: number,
  done: () => Promise<boolean>,
  { intervalMs = 250, quietMs = 2000, busyCoreShare = 0.02, cpu = cpuSeconds } = {},
): Promise<{ at: number; cpuSeconds: number }> {
  const sample = (previous: number): { at: number; cpuSeconds: number } => ({ at: performance.now(), cpuSeconds: cpu(pid) ?? previous });
  const worked = (from: { at: number; cpuSeconds: number }, to: { at: number; cpuSeconds: number }): boolean =>
    to.cpuSeconds - from.cpuSeconds > (busyCoreShare * (to.at - from.at)) / 1000;
  let last = sample(0);
  let busy = last;
  let finished = false;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    const now = sample(last.cpuSeconds);
    if (worked(last, now) || !finished) busy = now;
    last = now;
    if (!finished) {
      finished = await done();
      last = sample(now.cpuSeconds); // the check's own cost is not work
      continue;
    }
    if (now.at - busy.at >= quietMs) return busy;
  }
}

/**
 * The share of one core a process uses while it does nothing, over `ms`: what "quiet" must allow for a process
 * whose idle is not near zero (under `node --cpu-prof` every thread is interrupted for each sample, ~10-15 % of a
 * core on a slow machine, which a fixed threshold never saw end).
 */
export async function idleCoreShare(pid: number, ms = 3000, cpu = cpuSeconds): Promise<number> {
  const from = { at: performance.now(), cpuSeconds: cpu(pid) ?? 0 };
  await new Promise((resolve) => setTimeout(resolve, ms));
  const used = (cpu(pid) ?? from.cpuSeconds) - from.cpuSeconds;
  return Math.max(0, used / ((performance.now() - from.at) / 1000));
}

/**
 * What a script's first line sets (`#!/usr/bin/env -S NAME=value ... node --flag ...`): the variables and node's
 * own flags. A benchmark starts the service with `node FLAGS CLI serve` as its bin would (src/cli.ts sets
 * MALLOC_ARENA_MAX there; a build compared with --compare may set node flags too).
 */
export function shebangCommand(file: string): { env: Record<string, string>; nodeArgs: string[] } {
  const first = readFileSync(file, 'utf8').split('\n', 1)[0] ?? '';
  const match = /^#!\S*env\s+-S\s+(.*)$/.exec(first);
  if (!match) return { env: {}, nodeArgs: [] };
  const env: Record<string, string> = {};
  const words = match[1]!.trim().split(/\s+/);
  let at = 0;
  for (; at < words.length; at++) {
    const eq = words[at]!.indexOf('=');
    if (eq <= 0) break;
    env[words[at]!.slice(0, eq)] = words[at]!.slice(eq + 1);
  }
  // words[at] is the interpreter (node); what follows it are its flags
  return { env, nodeArgs: words.slice(at + 1).filter((w) => w.startsWith('-')) };
}

/** This process's CPU (user and system, every thread) since `since`, in ms. */
export function cpuMsSince(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}

/** The load averages (1, 5 and 15 minutes) as a bench prints them on its first and last lines. */
export const loadAverages = (): string =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
