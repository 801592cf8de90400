/**
 * src/lib/thread-priority.ts: on Linux, the calling thread alone is niced (the process's other threads keep their
 * priority), never raised again; read back from /proc/thread-self/stat, in a real worker thread.
 */
import { expect } from 'chai';
import { Worker } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { BACKGROUND_NICE, lowerThreadPriority } from '../../src/lib/thread-priority.js';

const niceOf = (stat: string): number => Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]); // field 19

/** In a new thread: lowers its priority to `nice` twice (the second time to a lower value) and reads it back. */
function inThread(nice: number): Promise<{ first: boolean; second: boolean; nice: number }> {
  const module = new URL('../../src/lib/thread-priority.js', import.meta.url).href;
  const code = `
    const { parentPort } = require('node:worker_threads');
    const { readFileSync } = require('node:fs');
    import(${JSON.stringify(module)}).then(({ lowerThreadPriority }) => {
      const first = lowerThreadPriority(${nice});
      const second = lowerThreadPriority(${nice - 5});
      parentPort.postMessage({ first, second, stat: readFileSync('/proc/thread-self/stat', 'utf8') });
    });`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true });
    worker.once('message', (m: { first: boolean; second: boolean; stat: string }) => {
      void worker.terminate().then(() => resolve({ first: m.first, second: m.second, nice: niceOf(m.stat) }), reject);
    });
    worker.once('error', reject);
  });
}

describe('lowerThreadPriority', () => {
  it('nices the calling thread only, and never raises it again', async function () {
    if (process.platform !== 'linux') {
      expect(lowerThreadPriority()).to.equal(false); // elsewhere it would nice the whole process: nothing is done
      this.skip();
    }
    const main = niceOf(await readFile('/proc/thread-self/stat', 'utf8'));
    expect(main).to.be.below(BACKGROUND_NICE);
    expect(await inThread(BACKGROUND_NICE)).to.deep.equal({ first: true, second: true, nice: BACKGROUND_NICE });
    expect(niceOf(await readFile('/proc/thread-self/stat', 'utf8'))).to.equal(main);
  });
});
