import { expect } from 'chai';
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { probeThreadMemory, sampleMemory } from '../../src/lib/thread-memory.js';
import { repoRoot } from '../helpers/shared.js';

const MODULE = pathToFileURL(path.join(repoRoot, 'dist', 'src', 'lib', 'thread-memory.js')).href;

/**
 * A real thread that answers probes as `role`, holding `wasmPages` of WebAssembly memory (64 KiB each) and an
 * ArrayBuffer of `bufferBytes` (filled, so that its pages are its own).
 */
async function answeringThread(role: string, wasmPages: number, bufferBytes = 0): Promise<Worker> {
  const worker = new Worker(
    `const { answerMemoryProbes } = await import(${JSON.stringify(MODULE)});
     const { parentPort } = await import('node:worker_threads');
     const memory = new WebAssembly.Memory({ initial: ${wasmPages} });
     globalThis.held = new Uint8Array(${bufferBytes}).fill(7);
     answerMemoryProbes(${JSON.stringify(role)}, () => memory.buffer.byteLength);
     parentPort.postMessage('ready');
     setInterval(() => {}, 1000);`,
    { eval: true },
  );
  await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
  return worker;
}

/** The store thread's own ArrayBuffer beside its WASM memory. */
const STORE_BUFFER = 24 * 1024 * 1024;

describe('thread memory probes', () => {
  let threads: Worker[] = [];
  before(async () => {
    threads = [await answeringThread('store', 160, STORE_BUFFER), await answeringThread('pipeline', 0), await answeringThread('pipeline', 0)];
  });
  after(() => Promise.all(threads.map((t) => t.terminate())));

  it('gets one answer per thread and round, each with its own heap and WASM memory, counted once', async () => {
    for (let round = 0; round < 3; round++) {
      const answers = await probeThreadMemory(1000);
      expect(answers.map((a) => a.role).sort()).to.deep.equal(['main', 'pipeline', 'pipeline', 'store']);
      expect(new Set(answers.map((a) => a.threadId)).size).to.equal(4);
      for (const a of answers) expect(a.heapTotal).to.be.greaterThan(a.heapUsed * 0.5).and.greaterThan(0);
      const store = answers.find((a) => a.role === 'store')!;
      expect(store.wasm).to.equal(160 * 65536);
      // Its buffers count as outside the heap, its WASM memory does not (Node 20's V8 counts that as external too,
      // Node 26's does not: either way it is counted once, as wasm, and the buffers stay).
      expect(store.external).to.be.at.least(STORE_BUFFER).and.lessThan(STORE_BUFFER + store.wasm);
    }
  });

  it("tells each thread's own CPU time: a thread that worked, more than one that waited", async () => {
    const burner = new Worker(
      `const { answerMemoryProbes } = await import(${JSON.stringify(MODULE)});
       const { parentPort } = await import('node:worker_threads');
       answerMemoryProbes('burner');
       let x = 0;
       for (let i = 0; i < 3e8; i++) x = (x + i * 7) % 1000003; // ~0.3 CPU-s on any machine, however loaded
       parentPort.postMessage(x);
       setInterval(() => {}, 1000);`,
      { eval: true },
    );
    try {
      await new Promise((resolve, reject) => burner.once('message', resolve).once('error', reject));
      const answers = await probeThreadMemory(1000);
      const cpu = (role: string): number => answers.find((a) => a.role === role)!.cpuMs;
      const idle = Math.max(...answers.filter((a) => a.role === 'pipeline').map((a) => a.cpuMs));
      if (process.platform === 'linux') {
        expect(cpu('burner')).to.be.greaterThan(idle + 100);
        expect(cpu('main')).to.be.greaterThan(0);
      } else {
        expect(answers.every((a) => a.cpuMs === 0)).to.equal(true); // no per-thread count there: none claimed
      }
      const sample = await sampleMemory(1000);
      const burnerKey = Object.keys(sample.cpuMs).find((k) => k.startsWith('burner:'));
      expect(burnerKey, 'the sample keys CPU by role:threadId').to.be.a('string');
      expect(sample.cpuMs).to.not.have.property('shared:-1');
    } finally {
      await burner.terminate();
    }
  });

  it('sums a sample by role, beside the process\'s RSS', async () => {
    const sample = await sampleMemory(1000);
    expect(sample.roles.pipeline).to.include({ threads: 2 });
    expect(sample.roles.store!.wasm).to.equal(160 * 65536);
    expect(sample.rss).to.be.greaterThan(sample.roles.main!.heapTotal);
  });
});
