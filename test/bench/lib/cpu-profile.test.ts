import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { formatProfiles, readProfiles, readThreadProfile } from '../../../bench/lib/cpu-profile.js';

describe('bench/lib/cpu-profile', function () {
  this.timeout(60_000);
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'filesift-cpu-profile-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('reads a real profile from node --cpu-prof: the function that burnt the CPU comes first', async () => {
    // The clock is read once per million steps, so the loop's own arithmetic is what the samples see.
    const script = 'function burnTheCpu() { const t = process.cpuUsage(); let x = 0; ' +
      'while ((process.cpuUsage(t).user + process.cpuUsage(t).system) / 1e6 < 0.5) for (let i = 0; i < 1e6; i++) x += Math.sqrt(x + i); return x; } ' +
      'console.log(burnTheCpu() > 0);';
    const run = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '-e', script], { encoding: 'utf8' });
    expect(run.status, run.stderr).to.equal(0);
    const [profile] = readProfiles(dir);
    expect(profile!.role).to.equal('main');
    expect(profile!.busySeconds).to.be.above(0.3);
    const [top] = profile!.functions;
    expect(top![0]).to.match(/^burnTheCpu /);
    expect(top![1]).to.be.above(0.5 * profile!.busySeconds);
    expect(formatProfiles([profile!])).to.include('burnTheCpu');
  });

  it('leaves out idle samples and piscina waiting for a task, and groups frames by package, module folder, wasm and V8', async () => {
    const frame = (id: number, functionName: string, url: string) => ({ id, callFrame: { functionName, url, lineNumber: 0 } });
    const profile = {
      nodes: [
        frame(1, '(root)', ''),
        frame(2, '(idle)', ''),
        frame(3, 'atomicsWaitLoop', 'file:///app/node_modules/piscina/dist/worker.js'),
        frame(4, 'analyze', 'file:///app/dist/src/pipeline/analyze/index.js'),
        frame(5, 'wasm-function[12]', 'wasm://wasm/0012'),
        frame(6, '(garbage collector)', ''),
        frame(7, 'parse', 'file:///app/node_modules/@scope/pkg/lib/parse.js'),
      ],
      // microseconds since the previous sample, spent in what this sample shows
      samples: [2, 3, 4, 4, 5, 6, 7],
      timeDeltas: [5_000_000, 7_000_000, 1_000_000, 1_000_000, 500_000, 250_000, 250_000],
    };
    const file = path.join(dir, 'CPU.20261127.101010.42.3.001.cpuprofile');
    await writeFile(file, JSON.stringify(profile));
    const read = readThreadProfile(file);
    expect(read.busySeconds).to.equal(3); // 2 + 0.5 + 0.25 + 0.25; idle and the wait not counted
    expect(read.role).to.equal('store'); // it ran WebAssembly
    expect(Object.fromEntries(read.units)).to.deep.equal({
      'src/pipeline/analyze': 2,
      wasm: 0.5,
      '(garbage collector)': 0.25,
      '@scope/pkg': 0.25,
    });
    expect(read.functions[0]).to.deep.equal(['analyze src/pipeline/analyze:1', 2]);
    expect(await readdir(dir)).to.have.length(1);
  });
});
