/**
 * A real document tree indexed side by side: filesift as a user runs it (`filesift serve` in a child process, the
 * folder watched through the API, the built-in embedder) and, with --recoll when `recollindex` is installed,
 * Recoll on the same folder in the same run (its own temporary configuration, stock settings).
 *
 *   npm run bench:corpus -- DIR [--recoll | --compare OTHER/dist/src/cli.js [--compare-first]] [--threads N] [--engine pglite|postgres] [--sample N] [--keep DATA_DIR] [--probe QUERY_FILE]
 *   npm run bench:corpus -- --restart-only DATA_DIR [--rounds N] [--compare OTHER/dist/src/cli.js]
 *
 * For each system: CPU seconds (user + system of every thread and helper process), CPU ms per file of DIR, wall
 * time until idle, peak RSS, the index on disk after the run and after a checkpoint (the write-ahead log apart),
 * failures, and the restart with nothing changed (start to idle: filesift's start-up reconcile, a second
 * `recollindex`). Then filesift's own account of the run (index_run_completed's stage sums) and, measured apart
 * on this thread over a sample of the files, parse and analyze CPU per format.
 *
 * "Idle" is the moment the process last used CPU (over 2 % of a core) before 2 s of quiet, once the run says it
 * is over: the index upkeep after the last file (vector index, keyword blocks) is part of the run.
 * --keep saves the bulk run's data directory (PGlite); --restart-only then measures only the restart, on fresh copies
 * of it, as often as wanted, alternating with another checkout's build (--compare) for a before/after in one run.
 * --probe asks a search a second while the bulk run and its queue go on (not the upkeep after them: bench:search's
 * stall run covers that) and prints their wall ms (p50 to the slowest).
 * --compare with DIR indexes it a second time, right after (or, with --compare-first, right before: alternate the
 * order between runs), with another checkout's build, in Recoll's column, and splits its peak by thread too.
 * The service logs its threads' memory and CPU time every second (FILESIFT_MEMORY_LOG_MS): the tables under the
 * figures split the peak by thread (V8 heap, memory outside it, PGlite's WASM memory; the rest is native: code,
 * stacks, malloc) and the CPU seconds by thread (main, store, pipeline, watcher; the rest is V8's and libuv's).
 * The machine is shared and noisy: compare the ratios of one run, and read the load average printed with them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ServiceClient, type ServiceEvent } from '../src/cli/client.js';
import { formatSize } from '../src/lib/format.js';
import type { MemorySample } from '../src/lib/thread-memory.js';
import { openPglite } from '../src/store/engines/pglite.js';
import { pgliteDir } from '../src/store/spawn.js';
import { createScratchDatabase } from '../test/helpers/engines.js';
import { databaseSize } from './lib/bench-service.js';
import { directoryBytes, listFiles } from './lib/files.js';
import { formatBreakdown, spread } from './lib/breakdown.js';
import { formatProfiles, readProfiles } from './lib/cpu-profile.js';
import type { CallFigures } from '../src/store/call-log.js';
import { choiceOption, positiveInt, readBenchArgs, type BenchCommand, type BenchOptions } from './lib/cli.js';
import { cpuSecondsExcept, idleCoreShare, parentPid, peakRssBytes, rssBytes, sampleTreeRss, shebangCommand, treeCpuSeconds, untilQuiet } from './lib/proc.js';
import { markdownTable, readQueryFile, summarize } from './lib/search-bench.js';

const CLI = {
  command: 'npm run bench:corpus --',
  about: 'A document tree indexed by filesift (through its API) and, with --recoll, by Recoll in the same run.',
  positional: { name: 'DIR', description: 'the folder to index (e.g. "$(bash bench/fetch-debian-docs.sh)")' },
  options: {
    recoll: { type: 'boolean', description: 'also index DIR with recollindex (when installed), stock settings' },
    threads: { type: 'string', value: 'N', description: 'pipeline threads (queue.max_concurrency; default: the service\'s own)' },
    engine: { type: 'string', value: 'pglite|postgres', default: 'pglite', description: 'postgres: a scratch database on DATABASE_URL\'s server' },
    sample: { type: 'string', value: 'N', default: '600', description: 'files (spread over DIR) for the per-format split; 0: none' },
    keep: { type: 'string', value: 'DATA_DIR', description: 'copy the bulk run\'s data directory (PGlite) there, for --restart-only' },
    'restart-only': { type: 'string', value: 'DATA_DIR', description: 'only the no-change restart, on copies of a kept data directory (no DIR)' },
    rounds: { type: 'string', value: 'N', default: '3', description: 'restarts per service with --restart-only (medians printed)' },
    compare: { type: 'string', value: 'CLI_JS', description: 'another build (its dist/src/cli.js): with DIR, index DIR with it too, in Recoll\'s column; with --restart-only, restart it too, alternating' },
    'compare-first': { type: 'boolean', description: 'with --compare and DIR: index DIR with the other build first (alternate the order between runs)' },
    'cpu-prof': { type: 'string', value: 'OUT_DIR', description: 'write V8 CPU profiles of the bulk run, one per thread (node --cpu-prof), into OUT_DIR, and print where each thread\'s CPU went' },
    probe: { type: 'string', value: 'QUERY_FILE', description: 'ask a search a second during the bulk run (keyword and hybrid in turn, the queries of QUERY_FILE, e.g. bench/home-queries.txt) and print their wall ms: what a person searching meanwhile waits (its CPU counts in filesift\'s)' },
  },
} satisfies BenchCommand<BenchOptions>;

const { dir, recoll, threads, engine, sample, keep, restartFrom, rounds, compare, compareFirst, cpuProf, probe } = readBenchArgs(CLI, ({ values, positional }) => {
  const restartFrom = values['restart-only'] === undefined ? null : path.resolve(values['restart-only']);
  if (!positional && restartFrom === null) throw new Error('DIR is required (or --restart-only DATA_DIR)');
  if (values.compare !== undefined && values.recoll === true) throw new Error('--compare takes Recoll\'s column: not with --recoll');
  const engine = choiceOption('engine', values.engine, ['pglite', 'postgres'] as const, 'pglite');
  if (engine === 'postgres' && !process.env.DATABASE_URL) throw new Error('--engine postgres needs DATABASE_URL (a server the bench may create a database on)');
  if (engine === 'postgres' && values.keep !== undefined) throw new Error('--keep saves a PGlite data directory: not with --engine postgres');
  return {
    dir: positional ? path.resolve(positional) : '',
    recoll: values.recoll === true,
    threads: values.threads === undefined ? null : positiveInt('threads', values.threads),
    engine,
    sample: values.sample === '0' ? 0 : positiveInt('sample', values.sample!),
    keep: values.keep === undefined ? null : path.resolve(values.keep),
    restartFrom,
    rounds: positiveInt('rounds', values.rounds!),
    compare: values.compare ?? null,
    compareFirst: values['compare-first'] === true,
    cpuProf: values['cpu-prof'] === undefined ? null : path.resolve(values['cpu-prof']),
    probe: values.probe === undefined ? null : readQueryFile(readFileSync(values.probe, 'utf8'), values.probe),
  };
});

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const OWN_CLI = path.join(ROOT, 'dist', 'src', 'cli.js');

/** One system's figures. */
interface SystemRun {
  /** The service's CPU seconds, and with --engine postgres the server's too (serverCpuSeconds). */
  cpuSeconds: number;
  /** --engine postgres: the PostgreSQL server's share of cpuSeconds (its processes, on this machine); else null. */
  serverCpuSeconds?: number | null;
  wallSeconds: number;
  peakRssBytes: number;
  /** filesift only: the service process's own peak (VmHWM), without the child that creates a new database. */
  servicePeakRssBytes?: number;
  /** Index on disk after the run; after a checkpoint; the write-ahead log after it (null: not separable). */
  diskBytes: number;
  checkpointedBytes: number;
  walBytes: number | null;
  failures: number;
  failureDetail: string;
  /** The start on the run's data directory; RSS once idle, and the peak of the process and its children until then. */
  restart: { listenSeconds: number | null; idleSeconds: number; cpuSeconds: number; phases?: StartUpPhases | null; idleRssBytes?: number; peakRssBytes?: number };
}

// ------------------------------------------------------------------------------------------------- filesift

interface Served {
  child: ChildProcess;
  client: ServiceClient;
  /** Seconds from spawn to "filesift is listening". */
  listenSeconds: number;
  exited: Promise<void>;
  /** The service's "start-up phases" log line, once it has come (ms since its process began; null before). */
  phases: StartUpPhases | null;
  /** What the store's calls cost over the service's life, logged as it stops (with FILESIFT_MEMORY_LOG_MS); null before. */
  storeCalls: CallFigures | null;
  /** Stops sampling and answers the peak RSS since spawn: the higher of the process's own and its tree's (a first start creates the database in a child process). */
  peakRss(): number;
  /** The process's own peak (VmHWM) since spawn. */
  ownPeakRss(): number;
}

/** What the service logs once its watched folders are watched and reconciled (src/service.ts). */
type StartUpPhases = Record<'modules_loaded_ms' | 'store_open_ms' | 'listening_ms' | 'watching_ms' | 'reconciled_ms', number>;
const PHASES: [keyof StartUpPhases, string][] = [
  ['modules_loaded_ms', 'modules loaded'],
  ['store_open_ms', 'store open'],
  ['listening_ms', 'listening'],
  ['watching_ms', 'folders watched'],
  ['reconciled_ms', 'reconciled'],
];

/** Variables a service here gets only from the run's own environment (see serve). */
const RUN_DECIDES = ['DATABASE_URL', 'FILESIFT_MEMORY_LOG_MS'] as const;

/** `filesift serve` in a child process, as a user starts it; resolves once it listens (its log line says where). */
async function serve(
  env: Record<string, string>,
  token: string,
  cli = OWN_CLI,
  onMemory?: (sample: MemorySample) => void,
  nodeArgs: string[] = [],
): Promise<Served> {
  const t0 = performance.now();
  const bin = shebangCommand(cli);
  // The run decides these, not the bench's own environment: a DATABASE_URL there turned a PGlite run into a
  // server's, and a memory log (probes every thread answers) is work that the restart's quiet would count.
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...bin.env, ...env };
  for (const name of RUN_DECIDES) if (env[name] === undefined) delete childEnv[name];
  const child = spawn(process.execPath, [...bin.nodeArgs, ...nodeArgs, cli, 'serve'], {
    env: childEnv,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const treeRss = sampleTreeRss(child.pid!);
  // 'close': after the exit and the end of its stderr, so its last log lines (the store's calls) are read.
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let phases: StartUpPhases | null = null;
  let storeCalls: CallFigures | null = null;
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        try {
          const entry = JSON.parse(line) as { msg?: string; url?: string; level?: number };
          if (entry.msg?.startsWith('start-up phases')) phases = entry as unknown as StartUpPhases;
          if (entry.msg === 'store calls') storeCalls = (entry as unknown as { calls: CallFigures }).calls;
          if (entry.msg === 'filesift is listening' && entry.url) resolve(entry.url);
          else if (entry.msg === 'memory') onMemory?.(entry as unknown as MemorySample);
          else if ((entry.level ?? 0) >= 50 || entry.msg?.includes('held the store')) process.stderr.write(`filesift: ${line}\n`);
        } catch {
          process.stderr.write(`filesift: ${line}\n`);
        }
      }
    });
    void exited.then(() => reject(new Error(`filesift serve exited with ${child.exitCode} before listening`)));
  });
  const listenSeconds = (performance.now() - t0) / 1000;
  return {
    child,
    client: new ServiceClient(url, token),
    listenSeconds,
    exited,
    get phases() {
      return phases;
    },
    get storeCalls() {
      return storeCalls;
    },
    peakRss: () => Math.max(peakRssBytes(child.pid!) ?? 0, treeRss.stop()),
    ownPeakRss: () => peakRssBytes(child.pid!) ?? 0,
  };
}

async function stop(served: Served): Promise<void> {
  served.peakRss();
  served.child.kill('SIGTERM');
  await served.exited;
}

interface Idle {
  runs: { runs: unknown[] };
  queue: { total_items: number };
}

async function nothingGoingOn(client: ServiceClient): Promise<boolean> {
  const [runs, queue] = await Promise.all([client.get<Idle['runs']>('/api/index/runs'), client.get<Idle['queue']>('/api/queue/status')]);
  return runs.runs.length === 0 && queue.total_items === 0;
}

/** A search the probe asked during the bulk run (--probe): its mode and wall ms, and why it failed if it did. */
interface ProbeSample {
  mode: 'keyword' | 'hybrid';
  ms: number;
  failed?: string;
}

/**
 * --probe: a search a second until stopped, keyword and hybrid in turn, each waited for before the next second
 * begins; what a person searching during a bulk run would wait.
 */
function startProbe(client: ServiceClient, queries: readonly string[]): { stop(): Promise<ProbeSample[]> } {
  const samples: ProbeSample[] = [];
  let stopped = false;
  const loop = (async () => {
    for (let i = 0; !stopped; i++) {
      const mode = i % 2 === 0 ? 'keyword' : 'hybrid';
      const started = performance.now();
      try {
        await client.post('/api/search/', { query: queries[i % queries.length], mode, limit: 20 });
        samples.push({ mode, ms: performance.now() - started });
      } catch (err) {
        samples.push({ mode, ms: performance.now() - started, failed: err instanceof Error ? err.message : String(err) });
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return samples;
    },
  };
}

interface FilesiftRun extends SystemRun {
  /** --probe's searches during the bulk run (this build's run only), else null. */
  probe: ProbeSample[] | null;
  /**
   * The service's own memory samples (FILESIFT_MEMORY_LOG_MS): the one of highest RSS, each role's highest, and
   * each thread's last CPU time ("role:threadId"; empty from a build whose samples carry none).
   */
  memory: { atPeak: MemorySample | null; roleMax: MemorySample['roles']; cpuMs: Record<string, number> };
  stageSeconds: Record<string, number>;
  indexed: number;
  /** The bulk run's store calls (null: the build does not log them). */
  storeCalls: CallFigures | null;
}

/** The store's calls by own time, largest first: "files.saveIndexed 120.3 s (5,410 calls, 22.2 ms a file, longest 950 ms)". */
function formatStoreCalls(calls: CallFigures, files: number): string {
  const kinds = Object.entries(calls.kinds).sort((a, b) => b[1].totalMs - a[1].totalMs);
  const total = kinds.reduce((sum, [, k]) => sum + k.totalMs, 0);
  const perFile = (ms: number): string => (files > 0 ? `, ${(ms / files).toFixed(1)} ms a file` : '');
  return `${(total / 1000).toFixed(1)} s in all${perFile(total)}; ` +
    kinds.slice(0, 8).map(([kind, k]) => `${kind} ${(k.totalMs / 1000).toFixed(1)} s (${k.calls} calls${perFile(k.totalMs)}, longest ${Math.round(k.longestMs)} ms)`).join('; ');
}

/** Keeps the sample of highest RSS, and per role the highest of each figure (taken at different moments). */
function memoryTracker(): { add(sample: MemorySample): void; result: FilesiftRun['memory'] } {
  const result: FilesiftRun['memory'] = { atPeak: null, roleMax: {}, cpuMs: {} };
  return {
    result,
    add(sample) {
      for (const [thread, ms] of Object.entries(sample.cpuMs ?? {})) result.cpuMs[thread] = Math.max(result.cpuMs[thread] ?? 0, ms);
      if (!result.atPeak || sample.rss > result.atPeak.rss) result.atPeak = sample;
      for (const [role, r] of Object.entries(sample.roles)) {
        const max = (result.roleMax[role] ??= { threads: 0, heapTotal: 0, external: 0, wasm: 0 });
        for (const k of ['threads', 'heapTotal', 'external', 'wasm'] as const) max[k] = Math.max(max[k], r[k]);
      }
    },
  };
}

/**
 * The PostgreSQL server's CPU seconds so far (its postmaster's process tree: live backends, and ended ones through
 * the postmaster's count of its reaped children), or null when the server does not run on this machine. Counted
 * with the service's: on PGlite the same work runs inside the service's process.
 */
async function serverCpu(url: string): Promise<(() => number) | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let postmaster: number | null;
  try {
    // Read while the backend lives: it ends with the connection.
    postmaster = parentPid((await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid);
  } finally {
    await client.end();
  }
  if (postmaster === null || treeCpuSeconds(postmaster) === null) return null;
  return () => treeCpuSeconds(postmaster) ?? 0;
}

/** `keepTo`: where to copy the bulk run's data directory (--keep: this build's run only, never the compared one's). */
async function runFilesift(corpus: string, cli = OWN_CLI, keepTo: string | null = null): Promise<FilesiftRun> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'filesift-bench-corpus-'));
  const scratch = engine === 'postgres' ? await createScratchDatabase(process.env.DATABASE_URL, 'filesift_bench') : null;
  const token = randomBytes(16).toString('hex');
  const env: Record<string, string> = {
    HOST: '127.0.0.1',
    PORT: '0',
    FILESIFT_DATA_DIR: dataDir,
    FILESIFT_API_TOKEN: token,
    FILESIFT_MODEL_PULL: 'off',
    LOG_LEVEL: 'info',
    FILESIFT_MEMORY_LOG_MS: '1000',
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
  };
  delete process.env.FILESIFT_MODEL_DIR; // the built-in embedder, as a fresh install has
  const server = scratch ? await serverCpu(scratch.url) : null;
  try {
    const server0 = server?.() ?? 0;
    // The bulk run: watch the folder, wait for the initial scan's index_run_completed, then for quiet.
    const t0 = performance.now();
    const memory = memoryTracker();
    // --cpu-prof: this build's bulk run only; node writes one profile per thread as each ends (SIGTERM included).
    const profiling = cpuProf !== null && cli === OWN_CLI ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : [];
    const first = await serve(env, token, cli, (sample) => memory.add(sample), profiling);
    const pid = first.child.pid!;
    const run: { completed: Extract<ServiceEvent, { type: 'index_run_completed' }>['data'] | null } = { completed: null };
    const failures = new Map<string, number>();
    const events = await first.client.events(['index_run_completed', 'file_failed'], (e) => {
      if (e.type === 'index_run_completed' && e.data.kind === 'watch') run.completed = e.data;
      if (e.type === 'file_failed') failures.set(e.data.code, (failures.get(e.data.code) ?? 0) + 1);
    });
    if (threads !== null) await first.client.request('PUT', '/api/settings/', { 'queue.max_concurrency': threads });
    // Profiled, V8's sampling threads never rest and each sampled thread wakes for every sample: those are left
    // out of "quiet", and what the sampling costs the other threads is measured before the run (on a slower machine
    // the sampled idle service used ~15 % of a core, and a fixed 5 % never saw the run end).
    const profiledCpu = (p: number): number | null => cpuSecondsExcept(p, 'v8:ProfEvntProc');
    const quiet = profiling.length > 0 ? { cpu: profiledCpu, busyCoreShare: Math.min(0.3, Math.max(0.05, 2 * (await idleCoreShare(pid, 3000, profiledCpu)) + 0.02)) } : {};
    if (quiet.busyCoreShare !== undefined) console.error(`profiled: quiet is under ${(100 * quiet.busyCoreShare).toFixed(0)} % of a core (twice the idle service's, + 2, at most 30)`);
    await first.client.post('/api/watch/', { directory_path: corpus });
    const probing = probe !== null && cli === OWN_CLI ? startProbe(first.client, probe) : null;
    let probed: ProbeSample[] | null = null;
    const idle = await untilQuiet(
      pid,
      async () => {
        const over = run.completed !== null && (await nothingGoingOn(first.client));
        // Searching on, the service would never be quiet: the probe covers the run and its queue, not the upkeep after.
        if (over && probing) probed = await probing.stop();
        return over;
      },
      quiet,
    );
    const serverSeconds = server ? server() - server0 : null;
    const peak = first.peakRss();
    const servicePeak = first.ownPeakRss();
    events.close();
    const done = run.completed!;
    await stop(first);

    const disk = await indexBytes(dataDir, scratch?.url ?? null);
    await checkpoint(dataDir, scratch?.url ?? null);
    const checkpointed = await indexBytes(dataDir, scratch?.url ?? null);
    if (keepTo) {
      await cp(dataDir, keepTo, { recursive: true });
      console.log(`data directory kept in ${keepTo}: npm run bench:corpus -- --restart-only ${keepTo}`);
    }

    // Without the memory log: its probe each second (every thread answering) is work the restart's quiet counted,
    // which put "idle" 0.3-1.9 s later (restarts of one kept index: median 1.70 s without, 2.1 s with, load < 1).
    const { FILESIFT_MEMORY_LOG_MS: _memoryLog, ...restartEnv } = env;
    const restart = await measureRestart(restartEnv, token, cli, server);
    return {
      probe: probed,
      memory: memory.result,
      cpuSeconds: idle.cpuSeconds + (serverSeconds ?? 0),
      serverCpuSeconds: serverSeconds,
      wallSeconds: (idle.at - t0) / 1000,
      peakRssBytes: peak,
      servicePeakRssBytes: servicePeak,
      diskBytes: disk.total,
      checkpointedBytes: checkpointed.total,
      walBytes: checkpointed.wal,
      failures: done.failed,
      failureDetail: [...failures].map(([code, n]) => `${n} ${code}`).join(', '),
      restart,
      stageSeconds: { ...done.stage_seconds },
      indexed: done.indexed,
      storeCalls: first.storeCalls,
    };
  } finally {
    await scratch?.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * The restart with nothing changed: spawn to the reconcile's end (every job's last scan after the restart, nothing
 * queued or running, then quiet).
 */
async function measureRestart(env: Record<string, string>, token: string, cli = OWN_CLI, server: (() => number) | null = null): Promise<SystemRun['restart']> {
  const server0 = server?.() ?? 0;
  const r0 = performance.now();
  const restartedAt = Date.now();
  const second = await serve(env, token, cli);
  try {
    const rested = await untilQuiet(second.child.pid!, async () => {
      const { jobs } = await second.client.get<{ jobs: { last_scan: string | null }[] }>('/api/watch/jobs');
      return jobs.every((j) => j.last_scan !== null && Date.parse(j.last_scan) >= restartedAt) && (await nothingGoingOn(second.client));
    });
    return {
      listenSeconds: second.listenSeconds,
      idleSeconds: (rested.at - r0) / 1000,
      cpuSeconds: rested.cpuSeconds + (server ? server() - server0 : 0),
      phases: second.phases,
      idleRssBytes: rssBytes(second.child.pid!) ?? 0,
      peakRssBytes: second.peakRss(),
    };
  } finally {
    await stop(second);
  }
}

/**
 * --restart-only: restarts on copies of an indexed data directory (its PGlite index; a bulk run of a large tree
 * takes many minutes, a restart seconds), alternating with another build's service when --compare names its
 * cli.js, so both are measured at the same load. Each restart gets a fresh copy: a restart may write.
 */
async function restartOnly(source: string, rounds: number, compare: string | null): Promise<void> {
  const services: [string, string][] = [['this build', OWN_CLI], ...(compare ? [['compared', path.resolve(compare)] as [string, string]] : [])];
  const results = new Map<string, SystemRun['restart'][]>(services.map(([name]) => [name, []]));
  console.log(`restart with nothing changed, ${rounds} round(s) on copies of ${source}; ${os.cpus().length} cores; load ${load()}`);
  for (let round = 0; round < rounds; round++) {
    for (const [name, cli] of services) {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'filesift-bench-restart-'));
      try {
        await cp(source, dataDir, { recursive: true });
        const token = randomBytes(16).toString('hex');
        const env = { HOST: '127.0.0.1', PORT: '0', FILESIFT_DATA_DIR: dataDir, FILESIFT_API_TOKEN: token, FILESIFT_MODEL_PULL: 'off', LOG_LEVEL: 'info' };
        const r = await measureRestart(env, token, cli);
        results.get(name)!.push(r);
        console.log(`  ${name}: listening ${r.listenSeconds!.toFixed(2)} s, idle ${r.idleSeconds.toFixed(2)} s, ${r.cpuSeconds.toFixed(2)} CPU-s, RSS ${mb(r.idleRssBytes!)} MB idle, ${mb(r.peakRssBytes!)} MB peak; load ${load()}`);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`\n${markdownTable(['service', 'seconds to listening', 'seconds until idle', 'CPU seconds', 'RSS when idle (MB)', 'peak RSS (MB)'], services.map(([name]) => {
    const rs = results.get(name)!;
    return [
      name,
      median(rs.map((r) => r.listenSeconds!)).toFixed(2),
      median(rs.map((r) => r.idleSeconds)).toFixed(2),
      median(rs.map((r) => r.cpuSeconds)).toFixed(2),
      mb(median(rs.map((r) => r.idleRssBytes!))),
      mb(median(rs.map((r) => r.peakRssBytes!))),
    ];
  }))}`);
  // Where each start went, from the service's own "start-up phases" line (a build older than that line has none).
  const phaseMedian = (rs: SystemRun['restart'][], key: keyof StartUpPhases): string => {
    const values = rs.flatMap((r) => (r.phases ? [r.phases[key] / 1000] : []));
    return values.length === 0 ? '–' : median(values).toFixed(2);
  };
  console.log(`\nseconds since the process began, when each start-up phase ended (median):\n\n${markdownTable(
    ['service', ...PHASES.map(([, label]) => label)],
    services.map(([name]) => [name, ...PHASES.map(([key]) => phaseMedian(results.get(name)!, key))]),
  )}`);
  console.log(`\nmedians of ${rounds} round(s); load average at the end: ${load()}`);
}

/** The index's bytes: PGlite's folder (and its pg_wal apart), or the PostgreSQL database (its WAL is the server's). */
async function indexBytes(dataDir: string, databaseUrl: string | null): Promise<{ total: number; wal: number | null }> {
  if (databaseUrl) return { total: await databaseSize(databaseUrl), wal: null };
  const dir = pgliteDir(dataDir);
  return { total: await directoryBytes(dir), wal: await directoryBytes(path.join(dir, 'pg_wal')) };
}

/** A CHECKPOINT with the service stopped (PGlite opened here, alone) or on the server. */
async function checkpoint(dataDir: string, databaseUrl: string | null): Promise<void> {
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query('CHECKPOINT').finally(() => client.end());
    return;
  }
  const db = await openPglite(pgliteDir(dataDir));
  try {
    await db.query('CHECKPOINT');
  } finally {
    await db.close();
  }
}

// --------------------------------------------------------------------------------------------------- Recoll

const hasRecoll = (): boolean => spawnSync('sh', ['-c', 'command -v recollindex'], { stdio: 'ignore' }).status === 0;

/**
 * One `recollindex` run under bash, whose `times` prints the CPU of its waited-for children (recollindex and the
 * filters it runs); the tree's resident memory is sampled meanwhile.
 */
async function recollindex(confDir: string, diags: string): Promise<{ cpuSeconds: number; wallSeconds: number; peakRssBytes: number }> {
  const t0 = performance.now();
  const child = spawn('bash', ['-c', 'recollindex -c "$1" --diagsfile "$2" >/dev/null 2>&1; status=$?; times; exit $status', 'bash', confDir, diags], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rss = sampleTreeRss(child.pid!);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const peak = rss.stop();
  if (code !== 0) throw new Error(`recollindex exited with ${code}`);
  // `times`: the shell's user and system time, then its children's: "0m1.234s 0m0.567s".
  const children = out.trim().split('\n').at(-1) ?? '';
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
  return { cpuSeconds: seconds, wallSeconds: (performance.now() - t0) / 1000, peakRssBytes: peak };
}

async function runRecoll(corpus: string): Promise<SystemRun> {
  const confDir = await mkdtemp(path.join(os.tmpdir(), 'filesift-bench-recoll-'));
  try {
    await writeFile(path.join(confDir, 'recoll.conf'), `topdirs = ${corpus}\n`);
    const diags = path.join(confDir, 'diags.txt');
    const first = await recollindex(confDir, diags);
    const db = path.join(confDir, 'xapiandb');
    const disk = await directoryBytes(db);
    // What Recoll could not index: its diagnostics file, one line per document, counted by reason.
    const reasons = new Map<string, number>();
    for (const line of (await readFile(diags, 'utf8').catch(() => '')).split('\n')) {
      const reason = line.split(' ')[0];
      if (reason) reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    }
    // Errors are failures; the other reasons (Skipped, NoHandler, NoContentSuffix...) are Recoll's choices.
    const failed = [...reasons].filter(([r]) => r === 'Error' || r === 'MissingHelper');
    const restart = await recollindex(confDir, diags);
    return {
      ...first,
      diskBytes: disk,
      checkpointedBytes: disk,
      walBytes: null,
      failures: failed.reduce((s, [, n]) => s + n, 0),
      failureDetail: [...reasons].map(([r, n]) => `${n} ${r}`).join(', '),
      restart: { listenSeconds: null, idleSeconds: restart.wallSeconds, cpuSeconds: restart.cpuSeconds },
    };
  } finally {
    await rm(confDir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------------------------------------------ main

const mb = (bytes: number): string => (bytes / 1e6).toFixed(0);
const ratio = (a: number, b: number): string => (b > 0 ? `${(a / b).toFixed(1)}×` : '–');
const load = (): string => os.loadavg().map((l) => l.toFixed(2)).join(', ');

/** --probe's searches: wall ms by mode over the bulk run. */
function printProbe(samples: readonly ProbeSample[]): void {
  const failed = samples.filter((s) => s.failed !== undefined);
  console.log(`\nSearches during the bulk run (--probe: one a second, ${samples.length} asked, ${failed.length} failed${failed[0] ? `: ${failed[0].failed}` : ''}), wall ms:\n`);
  console.log(markdownTable(
    ['mode', 'searches', 'p50', 'p95', 'p99', 'slowest'],
    (['keyword', 'hybrid'] as const).map((mode) => {
      const ms = samples.filter((s) => s.mode === mode && s.failed === undefined).map((s) => s.ms);
      const sum = summarize(ms);
      return [mode, String(sum.n), sum.p50, sum.p95, sum.p99, ms.length ? Math.max(...ms) : NaN];
    }),
  ));
}

/** Where the memory went: each thread role at the sample of highest RSS, and the highest each reached. */
function printMemory({ atPeak, roleMax }: FilesiftRun['memory'], which: string | null): void {
  if (!atPeak) return;
  const roles = Object.keys(roleMax);
  const accounted = Object.values(atPeak.roles).reduce((sum, r) => sum + r.heapTotal + r.external + r.wasm, 0);
  const cell = (r: MemorySample['roles'][string] | undefined): string[] =>
    r ? [String(r.threads), mb(r.heapTotal), mb(r.external), r.wasm ? mb(r.wasm) : '–'] : ['–', '–', '–', '–'];
  console.log(`\nMemory by thread${which ? `, ${which}` : ''} (MB; samples every second; at the sample of highest RSS, ${mb(atPeak.rss)} MB, and each role's highest):\n`);
  console.log(markdownTable(
    ['thread', 'threads', 'V8 heap', 'outside the heap', 'WASM', 'highest: threads', 'V8 heap', 'outside the heap', 'WASM'],
    [
      ...roles.map((role) => [role, ...cell(atPeak.roles[role]), ...cell(roleMax[role])]),
      ['rest (native: code, stacks, malloc, unanswered threads)', '', mb(atPeak.rss - accounted), '', '', '', '', '', ''],
    ],
  ));
}

/**
 * Where the CPU went: each thread role's CPU time (its threads' own counts, at their last answer) and the rest of
 * the process's (V8's garbage-collection and compiler helpers, libuv's file-system pool, threads that never answered).
 */
function printCpu(cpuMs: Record<string, number>, cpuSeconds: number, files: number, which: string | null, serverSeconds: number | null = null): void {
  const byRole = new Map<string, { threads: number; ms: number }>();
  for (const [thread, ms] of Object.entries(cpuMs)) {
    const role = thread.slice(0, thread.lastIndexOf(':'));
    const r = byRole.get(role) ?? { threads: 0, ms: 0 };
    byRole.set(role, { threads: r.threads + 1, ms: r.ms + ms });
  }
  if (byRole.size === 0) return;
  const total = cpuSeconds * 1000;
  const server = (serverSeconds ?? 0) * 1000;
  const rest = total - server - [...byRole.values()].reduce((sum, r) => sum + r.ms, 0);
  const line = (name: string, threads: string, ms: number): string[] =>
    [name, threads, (ms / 1000).toFixed(1), (ms / files).toFixed(1), `${((100 * ms) / total).toFixed(0)} %`];
  console.log(`\nCPU by thread${which ? `, ${which}` : ''} (each thread's own count, from start until idle):\n`);
  console.log(markdownTable(
    ['thread', 'threads', 'CPU seconds', 'CPU ms a file', 'share'],
    [
      ...[...byRole].sort((a, b) => b[1].ms - a[1].ms).map(([role, r]) => line(role, String(r.threads), r.ms)),
      line('rest (V8 GC and compiler helpers, libuv pool, unanswered threads)', '', rest),
      ...(serverSeconds !== null ? [line('the PostgreSQL server (its processes)', '', server)] : []),
    ],
  ));
}

async function main(): Promise<void> {
  if (restartFrom !== null) return restartOnly(restartFrom, rounds, compare);
  const files = await listFiles(dir);
  const withRecoll = recoll && hasRecoll();
  if (recoll && !withRecoll) console.log('recollindex is not installed: filesift alone (apt-get install recoll)');
  console.log(`${files.length} files, ${formatSize((await directoryBytes(dir)))} in ${dir}; engine ${engine}, threads ${threads ?? 'default'}; ${os.cpus().length} cores; load ${load()}`);

  const other = compare ? 'compared build' : 'Recoll';
  const before = compare && compareFirst ? await runFilesift(dir, path.resolve(compare)) : null;
  if (before) console.log(`${other} done; load ${load()}`);
  const fs = await runFilesift(dir, OWN_CLI, keep);
  console.log(`filesift done; load ${load()}`);
  const rc = before ?? (compare ? await runFilesift(dir, path.resolve(compare)) : withRecoll ? await runRecoll(dir) : null);
  if (rc && !before) console.log(`${other} done; load ${load()}`);

  const n = files.length;
  const rows: (readonly string[])[] = [];
  const row = (figure: string, f: number | string, r: number | string | null, rat: string): void => {
    rows.push(rc ? [figure, String(f), String(r ?? '–'), rat] : [figure, String(f)]);
  };
  const both = (figure: string, pick: (s: SystemRun) => number, show: (v: number) => string): void => {
    const f = pick(fs);
    const r = rc ? pick(rc) : null;
    row(figure, show(f), r === null ? null : show(r), r === null ? '' : ratio(f, r));
  };
  both('CPU seconds (user+sys, all threads and helpers)', (s) => s.cpuSeconds, (v) => v.toFixed(1));
  if (fs.serverCpuSeconds != null) row('… of which the PostgreSQL server', fs.serverCpuSeconds.toFixed(1), rc ? (rc.serverCpuSeconds?.toFixed(1) ?? '–') : null, '');
  else if (engine === 'postgres') row('… of which the PostgreSQL server', 'not counted (not on this machine)', rc ? '–' : null, '');
  both('CPU ms per file', (s) => (1000 * s.cpuSeconds) / n, (v) => v.toFixed(1));
  both('wall seconds until idle', (s) => s.wallSeconds, (v) => v.toFixed(1));
  both('peak RSS (MB; the process tree, the database-creating child included)', (s) => s.peakRssBytes, mb);
  // The first start's database is created by a child process (~650–800 MB for a few seconds, before any file): the
  // tree's peak is often that child's; this is the service's own, indexing (Recoll has no such row).
  if (rc?.servicePeakRssBytes !== undefined) both('… the service process alone (VmHWM)', (s) => s.servicePeakRssBytes ?? 0, mb);
  else row('… the service process alone (VmHWM)', mb(fs.servicePeakRssBytes ?? 0), rc ? '–' : null, '');
  both('index on disk after the run (MB)', (s) => s.diskBytes, mb);
  both('… after a checkpoint (MB)', (s) => s.checkpointedBytes, mb);
  row('… of which write-ahead log (MB)', fs.walBytes === null ? '–' : mb(fs.walBytes), rc ? '–' : null, '');
  row('failures', `${fs.failures}${fs.failureDetail ? ` (${fs.failureDetail})` : ''}`, rc ? `${rc.failures} (${rc.failureDetail || 'none'})` : null, '');
  row('restart, nothing changed: seconds to listening', fs.restart.listenSeconds!.toFixed(1), rc ? '–' : null, '');
  both('restart, nothing changed: seconds until idle', (s) => s.restart.idleSeconds, (v) => v.toFixed(2));
  both('restart, nothing changed: CPU seconds', (s) => s.restart.cpuSeconds, (v) => v.toFixed(2));
  console.log(`\n${markdownTable(rc ? ['figure', 'filesift', other, 'ratio'] : ['figure', 'filesift'], rows)}`);
  const stages = (run: FilesiftRun): string => Object.entries(run.stageSeconds).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(', ');
  console.log(`\nfilesift's run: ${fs.indexed} indexed; stage sums (index_run_completed, seconds over all threads): ${stages(fs)}`);
  if (rc && 'stageSeconds' in rc) console.log(`the ${other}'s run: ${(rc as FilesiftRun).indexed} indexed; stage sums: ${stages(rc as FilesiftRun)}`);
  for (const [who, r] of [['filesift', fs], ...(rc && 'stageSeconds' in rc ? [[`the ${other}`, rc as FilesiftRun]] : [])] as [string, FilesiftRun][]) {
    if (r.storeCalls) console.log(`${who}'s store thread, own time by call over the bulk run: ${formatStoreCalls(r.storeCalls, r.indexed)}`);
  }
  if (fs.probe) printProbe(fs.probe);
  printMemory(fs.memory, compare ? 'this build' : null);
  if (rc && 'memory' in rc) printMemory((rc as FilesiftRun).memory, other);
  printCpu(fs.memory.cpuMs, fs.cpuSeconds, n, compare ? 'this build' : null, fs.serverCpuSeconds ?? null);
  if (rc && 'memory' in rc) printCpu((rc as FilesiftRun).memory.cpuMs, rc.cpuSeconds, n, other, rc.serverCpuSeconds ?? null);

  if (sample > 0) {
    const picked = spread(files, sample);
    const formats = await formatBreakdown(picked);
    console.log(`\nParse and analyze CPU per format, one thread, ${picked.length} files spread over the corpus (load ${load()}):\n`);
    console.log(markdownTable(
      ['format', 'files', 'parse ms/file', 'analyze ms/file', 'share of the sample\'s CPU'],
      (() => {
        const total = formats.reduce((s, f) => s + f.files * (f.parseMs + f.analyzeMs), 0);
        return formats.map((f) => [f.format, String(f.files), f.parseMs, f.analyzeMs, `${((100 * f.files * (f.parseMs + f.analyzeMs)) / total).toFixed(0)} %`]);
      })(),
    ));
  }
  if (cpuProf) {
    console.log(`\nThe bulk run's CPU profiles (${cpuProf}; sampling slows the run: read the shares, not the seconds):\n`);
    console.log(formatProfiles(readProfiles(cpuProf, 10)));
  }
  console.log(`\nload average at the end: ${load()}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
