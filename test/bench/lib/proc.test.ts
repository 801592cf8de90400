import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { cpuSeconds, cpuSecondsExcept, idleCoreShare, parentPid, peakRssBytes, sampleTreeRss, shebangCommand, treeCpuSeconds, untilQuiet } from '../../../bench/lib/proc.js';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/** A child that burns `cpu` seconds of CPU (by its own clock), holding a 64 MB buffer, then idles until killed. */
function burner(cpu: number) {
  const script = `const b = Buffer.alloc(64e6, 1); const t = process.cpuUsage(); ` +
    `while ((process.cpuUsage(t).user + process.cpuUsage(t).system) / 1e6 < ${cpu}) {} ` +
    `console.log('burnt', b.length); setInterval(() => {}, 1000);`;
  return spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
}

describe('bench/lib/proc', function () {
  this.timeout(60_000);

  it("reads a script's first line as its bin runs it: the variables and node's flags", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'filesift-shebang-'));
    try {
      const script = (line: string) => {
        writeFileSync(path.join(dir, 'x.js'), `${line}\nconsole.log(1);\n`);
        return shebangCommand(path.join(dir, 'x.js'));
      };
      expect(script('#!/usr/bin/env -S A=1 B_=x node --single-threaded-gc --max-old-space-size=99')).to.deep.equal({
        env: { A: '1', B_: 'x' },
        nodeArgs: ['--single-threaded-gc', '--max-old-space-size=99'],
      });
      expect(script('#!/usr/bin/env -S A=1 node')).to.deep.equal({ env: { A: '1' }, nodeArgs: [] });
      expect(script('#!/usr/bin/env node')).to.deep.equal({ env: {}, nodeArgs: [] });
      expect(script('console.log(0);')).to.deep.equal({ env: {}, nodeArgs: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads a process tree\'s CPU seconds, peak RSS and tree RSS from /proc; untilQuiet waits for the work to end', async () => {
    const child = burner(0.6);
    let burnt = false;
    child.stdout.on('data', () => (burnt = true));
    const rss = sampleTreeRss(process.pid, 50);
    try {
      let askedAfterDone = 0;
      let done = false;
      const quiet = await untilQuiet(
        child.pid!,
        () => {
          if (done) askedAfterDone++;
          done = burnt;
          return Promise.resolve(burnt);
        },
        { intervalMs: 100, quietMs: 500 },
      );
      // done() is not asked again once it held (asking costs the watched service CPU, which would count as work).
      expect(askedAfterDone).to.equal(0);
      // The child burnt 0.6 s of CPU (plus its start) before going quiet, and is still there.
      expect(quiet.cpuSeconds).to.be.at.least(0.55);
      expect(cpuSeconds(child.pid!)).to.be.at.least(quiet.cpuSeconds);
      expect(peakRssBytes(child.pid!)).to.be.above(64e6);
      // Our own process plus the child (a descendant) holding its buffer.
      expect(rss.stop()).to.be.above(64e6 + (peakRssBytes(process.pid) ?? 0) / 4);
    } finally {
      rss.stop();
      child.kill();
    }
    await new Promise((resolve) => child.once('exit', resolve));
    expect(cpuSeconds(child.pid!)).to.equal(null);
  });

  it("idleCoreShare measures a process's share of a core: near none while it sleeps, most of one while it spins", async () => {
    const child = burner(30);
    let burnt = false;
    child.stdout.on('data', () => (burnt = true));
    try {
      // Spinning (30 s of CPU to burn, longer than the measure): at least a fifth of a core even on a loaded machine.
      expect(await idleCoreShare(child.pid!, 600)).to.be.above(0.2);
      expect(burnt, 'still spinning when measured').to.equal(false);
    } finally {
      child.kill();
    }
    await new Promise((resolve) => child.once('exit', resolve));
    const idle = burner(0);
    try {
      await new Promise((resolve) => idle.stdout.once('data', resolve));
      expect(await idleCoreShare(idle.pid!, 600)).to.be.below(0.1);
    } finally {
      idle.kill();
    }
    await new Promise((resolve) => idle.once('exit', resolve));
  });

  it('cpuSecondsExcept leaves out the threads of one name (a busy worker counted, then left out by its name)', async () => {
    // A worker that names itself and burns ~0.4 s of CPU by its own thread's clock (/proc/thread-self/stat: utime and
    // stime, fields 14 and 15, in clock ticks). Not process.cpuUsage(): that is the whole process's, and the process's
    // other threads (GC, compiler) working meanwhile would end the burn early.
    const script = `const fs = require('node:fs'); fs.writeFileSync('/proc/thread-self/comm', 'burner'); ` +
      `const own = () => { const f = fs.readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1].split(' '); ` +
      `return (Number(f[11]) + Number(f[12])) / 100; }; ` +
      `const t = own(); let i = 0; while (own() - t < 0.4) { for (let k = 0; k < 1e5; k++) i += k; } ` +
      `require('node:worker_threads').parentPort.postMessage('burnt ' + i); ` +
      // Alive until terminated: a worker whose script has ended may be gone before its thread is looked up (Node 26).
      `setInterval(() => {}, 60_000);`;
    const all0 = cpuSeconds(process.pid)!;
    const except0 = cpuSecondsExcept(process.pid, 'burner')!;
    const worker = new Worker(script, { eval: true });
    try {
      await new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      // A thread listed may end before its name is read (another test's worker, libuv's pool): it is not the burner.
      const nameOf = (t: string): string => {
        try {
          return readFileSync(`/proc/${process.pid}/task/${t}/comm`, 'utf8').trim();
        } catch {
          return '';
        }
      };
      const tid = (await import('node:fs')).readdirSync(`/proc/${process.pid}/task`).find((t) => nameOf(t) === 'burner');
      expect(tid, 'the worker\'s thread, by its name').to.be.a('string');
      const all = cpuSeconds(process.pid)! - all0;
      const except = cpuSecondsExcept(process.pid, 'burner')! - except0;
      expect(all).to.be.at.least(0.35);
      expect(all - except).to.be.at.least(0.3); // the burner's ~0.4 s counted in one, not in the other
    } finally {
      await worker.terminate();
    }
    expect(cpuSecondsExcept(999_999_999, 'x')).to.equal(null);
  });

  it("treeCpuSeconds counts a tree's live descendants and, once they are waited for, keeps their time", async () => {
    const before = treeCpuSeconds(process.pid)!;
    const child = burner(0.5);
    try {
      await new Promise((resolve) => child.stdout.once('data', resolve));
      expect(parentPid(child.pid!)).to.equal(process.pid);
      // A live descendant's time is in the tree's count, not yet in our own.
      expect(treeCpuSeconds(process.pid)! - before).to.be.at.least(0.45);
      expect(treeCpuSeconds(process.pid)! - cpuSeconds(process.pid)!).to.be.at.least(0.45);
    } finally {
      child.kill();
    }
    await new Promise((resolve) => child.once('exit', resolve));
    // Ended and waited for (node reaps its children): its time moved into our count of waited-for children.
    expect(treeCpuSeconds(process.pid)! - before).to.be.at.least(0.45);
    expect(parentPid(child.pid!)).to.equal(null);
    expect(treeCpuSeconds(999_999_999)).to.equal(null);
  });
});
