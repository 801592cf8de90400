/**
 * Where a process's memory and CPU go, thread by thread: every thread of the service (main, store, pipeline,
 * watcher, snippet, query embedder) answers a probe on one BroadcastChannel with its own V8 heap, its ArrayBuffers,
 * for the store PGlite's WASM memory, and the CPU time it has used so far. The process's RSS and CPU time alone
 * cannot say which thread holds or spends what (they share one address space and one process). Nothing runs
 * unless asked: a thread only listens (unref'd: the channel keeps no thread alive), and the service asks only when
 * FILESIFT_MEMORY_LOG_MS is set (service.ts), for benchmarks (bench/corpus.ts).
 */
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';

const CHANNEL = 'filesift:thread-memory';

/** One thread's memory, in bytes. */
export interface ThreadMemory {
  /** What the thread is: 'main', 'store', 'pipeline', ... */
  role: string;
  threadId: number;
  /** V8 heap committed (all spaces) and in use. */
  heapTotal: number;
  heapUsed: number;
  /** Memory held outside the V8 heap by this isolate's objects: ArrayBuffers (texts, vectors), native buffers. */
  external: number;
  /** WebAssembly memory (PGlite's heap; it never shrinks once grown); 0 where there is none. */
  wasm: number;
  /** CPU time this thread has used since it started, in ms (Linux; 0 where the system does not tell). */
  cpuMs: number;
}

/**
 * This thread's CPU time so far: the scheduler's own count of nanoseconds on a CPU (/proc/thread-self/schedstat,
 * Linux). Node 20 has no per-thread CPU call (process.cpuUsage() is the whole process's).
 */
function threadCpuMs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ', 1)[0]) / 1e6 || 0;
  } catch {
    return 0;
  }
}

/** The question (`probe`) and the answers (`answer`: every thread hears every answer too, and ignores it). */
interface Probe {
  probe: number;
}
type Answer = ThreadMemory & { answer: number };

/**
 * Whether this V8 counts a WebAssembly memory in the isolate's external memory. Node 20's does; Node 26's does not,
 * and subtracting PGlite's memory from the store's external figure there left it at 0 and moved the store's real
 * buffers (~20 MB) into the report's unexplained "rest". Asked once, by allocating a 1 MiB memory: V8 adjusts the
 * count when the memory is made, synchronously.
 */
let wasmCountedAsExternal: boolean | undefined;
/** The one WebAssembly call needed here (the project's TypeScript libraries declare no WebAssembly). */
const { WebAssembly: wasmApi } = globalThis as unknown as { WebAssembly: { Memory: new (size: { initial: number }) => { buffer: ArrayBuffer } } };
function externalIncludesWasm(): boolean {
  if (wasmCountedAsExternal === undefined) {
    const before = getHeapStatistics().external_memory;
    const probe = new wasmApi.Memory({ initial: 16 });
    wasmCountedAsExternal = getHeapStatistics().external_memory - before >= probe.buffer.byteLength;
  }
  return wasmCountedAsExternal;
}

/** This thread's figures now. */
export function threadMemory(role: string, wasmBytes: () => number = () => 0): ThreadMemory {
  const heap = getHeapStatistics();
  const wasm = wasmBytes();
  // Where V8 counts WASM memory as external too, it is counted once, as wasm.
  const external = wasm > 0 && externalIncludesWasm() ? heap.external_memory - wasm : heap.external_memory;
  return {
    role,
    threadId,
    heapTotal: heap.total_heap_size,
    heapUsed: heap.used_heap_size,
    external: Math.max(0, external),
    wasm,
    cpuMs: threadCpuMs(),
  };
}

/** Makes this thread answer memory probes as `role` (once per thread; a busy thread answers after its task). */
export function answerMemoryProbes(role: string, wasmBytes?: () => number): void {
  const channel = new BroadcastChannel(CHANNEL);
  channel.unref();
  channel.onmessage = (event) => {
    const data = (event as { data: unknown }).data;
    if (typeof data === 'object' && data !== null && 'probe' in data) {
      channel.postMessage({ ...threadMemory(role, wasmBytes), answer: (data as Probe).probe } satisfies Answer);
    }
  };
}

/** Sources of shared memory (SharedArrayBuffers), which V8 counts in no thread's figures: see countSharedMemory. */
const sharedSources = new Set<() => number>();

/**
 * Makes the main thread's answers include `bytes()` as role 'shared': memory in SharedArrayBuffers that several
 * threads use (the built-in embedder's vocabulary index and table), resident once, and counted in no thread's
 * external memory by V8, so it would otherwise hide in the unaccounted rest.
 */
export function countSharedMemory(bytes: () => number): void {
  sharedSources.add(bytes);
}

let probes = 0;

/**
 * Asks every thread for its figures and gathers the answers that arrive within `waitMs` (a thread deep in a long
 * task answers late and is left out of this round), the main thread's own first.
 */
export async function probeThreadMemory(waitMs = 250): Promise<ThreadMemory[]> {
  if (!isMainThread) throw new Error('probeThreadMemory runs on the main thread');
  const id = ++probes;
  const channel = new BroadcastChannel(CHANNEL);
  const answers: ThreadMemory[] = [threadMemory('main')];
  let shared = 0;
  for (const bytes of sharedSources) shared += bytes();
  if (shared > 0) answers.push({ role: 'shared', threadId: -1, heapTotal: 0, heapUsed: 0, external: shared, wasm: 0, cpuMs: 0 });
  channel.onmessage = (event) => {
    const data = (event as { data: Partial<Answer> }).data;
    if (data.answer !== id) return;
    const { answer: _, ...memory } = data as Answer;
    answers.push(memory);
  };
  channel.postMessage({ probe: id } satisfies Probe);
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  channel.close();
  return answers;
}

/** One probe round, summed by role, with the process's resident memory: what FILESIFT_MEMORY_LOG_MS logs. */
export interface MemorySample {
  rss: number;
  /** Per role: threads answering, and their heap committed, external and WASM bytes summed. */
  roles: Record<string, { threads: number; heapTotal: number; external: number; wasm: number }>;
  /**
   * Each answering thread's CPU time so far, in ms, by "role:threadId" (a pipeline thread that ends takes its
   * count with it: its last answer has it).
   */
  cpuMs: Record<string, number>;
}

export async function sampleMemory(waitMs?: number): Promise<MemorySample> {
  const threads = await probeThreadMemory(waitMs);
  const roles: MemorySample['roles'] = {};
  const cpuMs: MemorySample['cpuMs'] = {};
  for (const t of threads) {
    if (t.threadId >= 0) cpuMs[`${t.role}:${t.threadId}`] = Math.round(t.cpuMs);
    const r = (roles[t.role] ??= { threads: 0, heapTotal: 0, external: 0, wasm: 0 });
    r.threads += 1;
    r.heapTotal += t.heapTotal;
    r.external += t.external;
    r.wasm += t.wasm;
  }
  return { rss: process.memoryUsage.rss(), roles, cpuMs };
}

/** Calls `log` with a sample every `everyMs` until stopped (the timer keeps nothing alive). */
export function everyMemorySample(everyMs: number, log: (sample: MemorySample) => void): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async (): Promise<void> => {
    const sample = await sampleMemory(Math.min(250, everyMs / 2));
    if (stopped) return;
    log(sample);
    timer = setTimeout(() => void tick(), everyMs).unref();
  };
  timer = setTimeout(() => void tick(), everyMs).unref();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
