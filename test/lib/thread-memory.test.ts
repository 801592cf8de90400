import { expect } from 'chai';
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { probeThreadMemory, sampleMemory } from '../../src/lib/thread-memory.js';
import { repoRoot } from '../helpers/shared.js';

const MODULE = pathToFileURL(path.join(repoRoot, 'dist', 'src', 'lib', 'thread-memory.js')).href;

/** A real thread that answers probes as `role`, holding `wasmPages` of WebAssembly memory (64 KiB each). */
async function answeringThread(role: string, wasmPages: number): Promise<Worker> {
  const worker = new Worker(
    `const { answerMemoryProbes } = await import(${JSON.stringify(MODULE)});
     const { parentPort } = await import('node:worker_threads');
     const memory = new WebAssembly.Memory({ initial: ${wasmPages} });
     answerMemoryProbes(${JSON.stringify(role)}, () => memory.buffer.byteLength);
     parentPort.postMessage('ready');
     setInterval(() => {}, 1000);`,
    { eval: true },
  );
  await new Promise((resolve, reject) => worker.once('message', resolve).once('error', reject));
  return worker;
}

describe('thread memory probes', () => {
  let threads: Worker[] = [];
  before(async () => {
    threads = [await answeringThread('store', 160), await answeringThread('pipeline', 0), await answeringThread('pipeline', 0)];
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
      // V8 counts the WASM memory as external too: it is not counted twice.
      expect(store.external).to.be.lessThan(store.wasm);
    }
  });

  it('sums a sample by role, beside the process\'s RSS', async () => {
    const sample = await sampleMemory(1000);
    expect(sample.roles.pipeline).to.include({ threads: 2 });
    expect(sample.roles.store!.wasm).to.equal(160 * 65536);
    expect(sample.rss).to.be.greaterThan(sample.roles.main!.heapTotal);
  });
});
