/**
 * A `git checkout` touching 10,000 files in a watched folder: does the API stay responsive? A real service
 * (PGlite, real chokidar, the real pipeline) watches a folder; the burst writes BENCH_FILES files as fast as
 * the disk takes them. Throughout, a client asks GET /api/queue/status every 20 ms; we report its latency
 * (p50/p99/max) and the main thread's event-loop delay in three phases: the event storm (until every file is
 * in the queue), the first BENCH_PROCESS_SECONDS of processing, and (with BENCH_DRAIN=1) until the queue is
 * empty.
 *
 *   npm run bench:watch-burst           (BENCH_FILES=10000, BENCH_PROCESS_SECONDS=30)
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startService } from '../src/service.js';
import { readBenchArgs } from './lib/cli.js';

readBenchArgs({
  command: 'npm run bench:watch-burst --',
  about: 'A burst of files written into a watched folder: queue-status latency and event-loop delay of the service.',
  options: {},
  notes: [
    'Sizes come from the environment: BENCH_FILES (default 10000), BENCH_PROCESS_SECONDS (default 30),',
    'BENCH_DRAIN=1 (also measure until the queue is empty).',
  ],
});
const FILES = Number(process.env.BENCH_FILES ?? 10_000);
const PROCESS_SECONDS = Number(process.env.BENCH_PROCESS_SECONDS ?? 30);
const DRAIN = process.env.BENCH_DRAIN === '1';
const SCIFACT = path.resolve(process.cwd(), '..', 'shared', 'datasets', 'scifact', 'files');

function quantiles(samples: number[]): string {
  if (samples.length === 0) return 'no samples';
  const sorted = [...samples].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  return `n=${samples.length} p50 ${q(0.5).toFixed(1)} ms, p99 ${q(0.99).toFixed(1)} ms, max ${q(1).toFixed(1)} ms`;
}

async function texts(): Promise<string[]> {
  try {
    const names = (await readdir(SCIFACT)).sort().slice(0, 2000);
    return await Promise.all(names.map((n) => readFile(path.join(SCIFACT, n), 'utf8')));
  } catch {
    return ['The quick brown fox jumps over the lazy dog while the committee reviews the quarterly report.'];
  }
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'filesift-bench-data-'));
  const watched = await mkdtemp(path.join(os.tmpdir(), 'filesift-bench-watch-'));
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', FILESIFT_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  const service = await startService(config, { logger: createLogger('warn') });
  const base = service.url;
  const corpus = await texts();
  let enqueued = 0;
  service.bus.subscribe((e) => {
    if (e.type === 'queue_item_added') enqueued++;
  });
  try {
    await service.settings.update({ 'queue.cooldown_seconds': 2 });
    const res = await fetch(`${base}/api/watch/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ directory_path: watched }) });
    const jobId = ((await res.json()) as { job_id: number }).job_id;
    await service.watcher.settled(jobId);

    let phase = 'storm';
    const latencies: Record<string, number[]> = { storm: [], processing: [], drain: [] };
    const loop = monitorEventLoopDelay({ resolution: 5 });
    const loopByPhase: Record<string, string> = {};
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const started = performance.now();
        const r = await fetch(`${base}/api/queue/status`);
        await r.json();
        latencies[phase]!.push(performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const endPhase = (name: string) => {
      loopByPhase[name] = `p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms, max ${(loop.max / 1e6).toFixed(1)} ms`;
      loop.reset();
    };

    loop.enable();
    const t0 = performance.now();
    const dirs = 100;
    for (let d = 0; d < dirs; d++) await mkdir(path.join(watched, `module${d}`));
    const writes: Promise<void>[] = [];
    for (let i = 0; i < FILES; i++) {
      const text = `${corpus[i % corpus.length]}\n\nrevision ${i}\n`;
      writes.push(writeFile(path.join(watched, `module${i % dirs}`, `file${i}.txt`), text));
      if (writes.length >= 256) await Promise.all(writes.splice(0));
    }
    await Promise.all(writes);
    const written = performance.now() - t0;
    while (enqueued < FILES) await new Promise((resolve) => setTimeout(resolve, 20));
    const inQueue = performance.now() - t0;
    endPhase('storm');
    console.log(`burst: ${FILES} files written in ${(written / 1000).toFixed(1)} s; all ${FILES} in the queue after ${(inQueue / 1000).toFixed(1)} s`);

    phase = 'processing';
    const tp = performance.now();
    await new Promise((resolve) => setTimeout(resolve, PROCESS_SECONDS * 1000));
    const status = service.queue.status();
    const done = FILES - status.total_items;
    endPhase('processing');
    console.log(`processing: ${done} files done in the first ${PROCESS_SECONDS} s (${(done / ((performance.now() - tp) / 1000)).toFixed(1)} files/s); queue ${JSON.stringify(status)}`);
    if (DRAIN) {
      phase = 'drain';
      while (service.queue.status().total_items > 0) await new Promise((resolve) => setTimeout(resolve, 200));
      endPhase('drain');
      console.log(`drained after ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    polling = false;
    await poller;
    loop.disable();
    for (const name of Object.keys(loopByPhase)) {
      console.log(`GET /api/queue/status during ${name}: ${quantiles(latencies[name]!)}; main event-loop delay ${loopByPhase[name]}`);
    }
  } finally {
    await service.close('bench');
    await rm(dataDir, { recursive: true, force: true });
    await rm(watched, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
