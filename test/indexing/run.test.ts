import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { EventBus } from '../../src/events/bus.js';
import type { EventMap } from '../../src/events/types.js';
import { IndexRun, progressLine } from '../../src/indexing/run.js';

/** A real pino logger writing its JSON lines into an array. */
function capturedLogger(): { logger: pino.Logger; lines: { level: number; msg: string }[] } {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

function progressEvents(bus: EventBus): EventMap['index_run_progress'][] {
  const out: EventMap['index_run_progress'][] = [];
  bus.subscribe((e) => {
    if (e.type === 'index_run_progress') out.push(e.data);
  });
  return out;
}

describe('IndexRun', () => {
  it('a count ahead of the walk makes the total final at once; the walk replaces it with what it found', () => {
    const bus = new EventBus();
    const progress = progressEvents(bus);
    const run = new IndexRun(bus, 'watch', '/home/me', false);
    run.addToTotal(3);
    expect(run.totalFinal).to.equal(false);
    run.estimateTotal(1000);
    expect(run.total).to.equal(1000);
    expect(run.totalFinal).to.equal(true);
    expect(progress.at(-1)).to.include({ total: 1000, total_final: true, processed: 0 });

    // Files created during the scan: the walk finds more than were counted, and the total follows.
    run.addToTotal(1002);
    expect(run.total).to.equal(1005);
    // The walk ends having found 998 (files deleted meanwhile): that is the total, so progress can reach it.
    const walked = new IndexRun(bus, 'watch', '/elsewhere', false);
    walked.estimateTotal(1000);
    walked.addToTotal(998);
    walked.finalizeTotal();
    expect(walked.total).to.equal(998);
    expect(progress.at(-1)).to.include({ total: 998, total_final: true });
    // A count arriving after the walk ended changes nothing.
    walked.estimateTotal(5000);
    expect(walked.total).to.equal(998);
  });

  it('reports an ETA only when the total is final and files are moving, and the current file until it ends', async () => {
    const bus = new EventBus();
    const run = new IndexRun(bus, 'directory', '/data', true);
    run.addToTotal(10);
    run.noteCurrent('/data/a.txt');
    expect(run.progress().eta_seconds).to.equal(null);
    await new Promise((r) => setTimeout(r, 20));
    run.record('indexed');
    run.estimateTotal(10);
    const p = run.progress();
    expect(p.eta_seconds).to.be.a('number').and.to.be.at.least(0);
    expect(p.files_per_second).to.be.greaterThan(0);
    expect(p.current_path).to.equal('/data/a.txt');
    run.complete();
    expect(run.progress().current_path).to.equal(null);
  });

  it('logs its start and end at info for a scan, and a progress line at most every logIntervalMs', async () => {
    const { logger, lines } = capturedLogger();
    const bus = new EventBus();
    const run = new IndexRun(bus, 'watch', '/home/me', false, { logger, logIntervalMs: 30 });
    run.estimateTotal(3);
    expect(lines.map((l) => l.msg)).to.deep.equal(['indexing run started: watch /home/me']);
    await new Promise((r) => setTimeout(r, 40));
    run.addToTotal(3);
    run.record('indexed'); // within a second of the last progress event: no event, no line
    run.finalizeTotal(); // forced progress event, and the interval has passed: one line
    const progressLines = lines.filter((l) => l.msg.includes('files/s'));
    expect(progressLines).to.have.length(1);
    expect(progressLines[0]!.msg).to.match(/^watch \/home\/me: 1 of 3 files \(33\.3 %\), [\d.]+ files\/s, about \d+s left$/);
    run.complete();
    expect(lines.at(-1)!.msg).to.match(/^indexing run completed: watch \/home\/me, 1 of 3 files in \d+s \(1 indexed, 0 unchanged, 0 failed, 0 removed\)$/);
    expect(lines.every((l) => l.level === 30)).to.equal(true); // info
  });

  it('logs a single file run at debug only', () => {
    const { logger, lines } = capturedLogger();
    const run = new IndexRun(new EventBus(), 'file', '/data/a.txt', true, { logger });
    run.addToTotal(1);
    run.finalizeTotal();
    run.record('indexed');
    run.complete();
    expect(lines.map((l) => l.level)).to.deep.equal([20, 20]);
  });
});

describe('progressLine', () => {
  it('says how far, how fast and how long', () => {
    const line = progressLine('watch /home/me', {
      run_id: 'r',
      processed: 1200,
      indexed: 1100,
      name_only: 40,
      skipped: 90,
      failed: 10,
      removed: 0,
      total: 30000,
      total_final: true,
      files_per_second: 85.2,
      eta_seconds: 338,
      current_path: '/home/me/x.pdf',
    });
    expect(line).to.equal('watch /home/me: 1200 of 30000 files (4.0 %), 85.2 files/s, 10 failed, about 5m 38s left');
  });

  it('says the total is not known yet while it is not', () => {
    const line = progressLine('directory /d', {
      run_id: 'r', processed: 5, indexed: 5, name_only: 0, skipped: 0, failed: 0, removed: 0, total: 9, total_final: false, files_per_second: 2, eta_seconds: null, current_path: null,
    });
    expect(line).to.equal('directory /d: 5 files (9 found so far), 2 files/s');
  });
});
