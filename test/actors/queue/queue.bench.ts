/**
 * Burst benchmark (not a test): a `git checkout` touching 10,000 files.
 *   npm run build && node dist/test/actors/queue/queue.bench.js
 * Reports enqueue cost, status() latency during the burst, event-loop delay while 10,000 items cool down,
 * become ready and drain through a processor, and the number of persistence writes.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createQueue } from '../../../src/actors/queue/queue.js';
import type { QueueFileEvent } from '../../../src/actors/queue/types.js';
import type { ProcessOutcome, QueueProcessor } from '../../../src/actors/queue/types.js';
import { MemoryPersistence } from './fakes.js';

/** Does nothing but answer in a later macrotask, as a worker-thread round trip would. */
const processor: QueueProcessor = {
  process: () => new Promise<ProcessOutcome>((resolve) => setImmediate(() => resolve({ ok: true }))),
};

/** Wall and CPU milliseconds of a synchronous call (the machine may be shared: CPU time is the steadier). */
function timed(fn: () => void): string {
  const cpu = process.cpuUsage();
  const start = performance.now();
  fn();
  const used = process.cpuUsage(cpu);
  return `${(performance.now() - start).toFixed(1)} ms wall, ${((used.user + used.system) / 1000).toFixed(1)} ms CPU`;
}

const N = 10_000;
const paths = Array.from({ length: N }, (_, i) => `/repo/src/module${i % 100}/file${i}.ts`);
const events = (action: 'index' | 'delete'): QueueFileEvent[] => paths.map((path) => ({ path, action }));

function quantiles(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  return `p50 ${(q(0.5) * 1000).toFixed(1)} µs, p99 ${(q(0.99) * 1000).toFixed(1)} µs, max ${(q(1) * 1000).toFixed(1)} µs`;
}

/** Event-loop delay of an idle second: the noise floor of this machine right now (other load, GC). */
async function idleLoopDelay(): Promise<string> {
  const idle = monitorEventLoopDelay({ resolution: 1 });
  idle.enable();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  idle.disable();
  return `p99 ${(idle.percentile(99) / 1e6).toFixed(2)} ms, max ${(idle.max / 1e6).toFixed(2)} ms`;
}

async function main(): Promise<void> {
  console.log(`idle event-loop delay (noise floor): ${await idleLoopDelay()}`);
  let eventCount = 0;
  const persistence = new MemoryPersistence();
  const queue = createQueue({
    persistence,
    processor,
    settings: { cooldownSeconds: 0.5, maxConcurrency: 4, maxRetries: 3 },
    onEvent: () => eventCount++,
  });
  await queue.start();
  queue.pause(); // first measure enqueueing alone

  // 1. one call with 10,000 events
  const fresh = events('index');
  console.log(`enqueueMany(10,000 new paths): ${timed(() => queue.enqueueMany(fresh))}`);

  // 2. the same paths again, one event per call, with a status() call after each
  const statusTimes: number[] = [];
  const again = events('delete');
  const burstTime = timed(() => {
    for (const event of again) {
      queue.enqueue(event);
      const s = performance.now();
      queue.status();
      statusTimes.push(performance.now() - s);
    }
  });
  console.log(`enqueue × 10,000, one per call (coalescing into existing items) + status() after each: ${burstTime}`);
  console.log(`status() during that burst: ${quantiles(statusTimes)}`);
  console.log(`items() with ${queue.status().total_items} items: ${timed(() => queue.items())}`);
  await queue.flush();
  console.log(`persistence writes so far: ${persistence.upsertCalls} upserts, ${persistence.removeCalls} removes (largest batch ${persistence.largestBatch})`);

  // 3. drain on real timers while the event loop is watched and status() is polled like an HTTP client would
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const polled: number[] = [];
  const poll = setInterval(() => {
    const s = performance.now();
    queue.status();
    polled.push(performance.now() - s);
  }, 1);
  const t = performance.now();
  queue.resume();
  while (queue.status().total_items > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const drainMs = performance.now() - t;
  clearInterval(poll);
  delay.disable();
  await queue.close();
  console.log(`drain of ${N} items (ready → processing → completed, processor answering in the next macrotask, concurrency 4): ${drainMs.toFixed(0)} ms`);
  console.log(
    `event-loop delay during the drain: p50 ${(delay.percentile(50) / 1e6).toFixed(2)} ms, ` +
      `p99 ${(delay.percentile(99) / 1e6).toFixed(2)} ms, max ${(delay.max / 1e6).toFixed(2)} ms`,
  );
  console.log(`status() polled during the drain (${polled.length} calls): ${quantiles(polled)}`);
  console.log(`events emitted: ${eventCount}`);
  console.log(`persistence writes in total: ${persistence.upsertCalls} upserts, ${persistence.removeCalls} removes; rows left ${persistence.rows.size}`);

  // 4. a second, fresh burst while the queue runs: how long does one 10,000-event message block the loop?
  const q2 = createQueue({
    persistence: new MemoryPersistence(),
    processor,
    settings: { cooldownSeconds: 0.2, maxConcurrency: 4, maxRetries: 3 },
    onEvent: () => eventCount++,
  });
  await q2.start();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const perMessage: number[] = [];
  const all = events('index');
  for (let i = 0; i < N; i += 100) {
    const batch = all.slice(i, i + 100);
    const s = performance.now();
    q2.enqueueMany(batch); // the watcher posting 100 events per message
    perMessage.push(performance.now() - s);
    await new Promise((resolve) => setImmediate(resolve));
  }
  while (q2.status().total_items > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  loop.disable();
  await q2.close();
  console.log(
    `10,000 events in 100-event messages, then drained: enqueueMany per message ${quantiles(perMessage)}; ` +
      `event-loop delay p99 ${(loop.percentile(99) / 1e6).toFixed(2)} ms, max ${(loop.max / 1e6).toFixed(2)} ms`,
  );
}

await main();
