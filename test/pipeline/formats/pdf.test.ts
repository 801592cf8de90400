import { expect } from 'chai';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { pdfDate } from '../../../src/pipeline/formats/pdf.js';
import { sharedPath } from '../../helpers/shared.js';

describe('pdfDate', () => {
  it('converts PDF date strings to ISO 8601', () => {
    expect(pdfDate("D:20090102030405+01'00'")).to.equal('2009-01-02T02:04:05.000Z');
    expect(pdfDate('D:20090102030405Z')).to.equal('2009-01-02T03:04:05.000Z');
    expect(pdfDate('D:2009')).to.equal('2009-01-01T00:00:00.000Z');
    expect(pdfDate('yesterday')).to.equal(undefined);
    expect(pdfDate(undefined)).to.equal(undefined);
  });
});

describe('pdf.js in a pipeline thread', function () {
  this.timeout(60_000);

  it("leaves the engine's own built-ins in place after reading a PDF (its core-js replaces push, JSON.parse...)", async () => {
    const dir = sharedPath('datasets', 'formats', 'pdf');
    const file = path.join(dir, readdirSync(dir).filter((f) => f.endsWith('.pdf')).sort()[0]!);
    const parseUrl = new URL('../../../src/pipeline/stages/parse.js', import.meta.url).href;
    // A new thread: its built-ins are pristine until pdf.js loads in it, as in a pipeline thread.
    const worker = new Worker(
      // The same functions before and after, by identity: core-js also makes its versions print as native code.
      `const { parentPort, workerData } = require('node:worker_threads');
       const current = () => [Array.prototype.push, JSON.parse, JSON.stringify, Function.prototype.toString];
       const before = current();
       import(workerData.parseUrl)
         .then((m) => m.parseFile(workerData.file, { maxFileBytes: 1e8, maxTextChars: 1e6 }))
         .then((r) => parentPort.postMessage({ ok: r.ok, format: r.ok ? r.doc.format : r.code, same: current().map((f, i) => f === before[i]) }));`,
      { eval: true, workerData: { parseUrl, file } },
    );
    try {
      const [result] = (await once(worker, 'message')) as [{ ok: boolean; format: string; same: boolean[] }];
      expect(result).to.deep.equal({ ok: true, format: 'pdf', same: [true, true, true, true] });
    } finally {
      await worker.terminate();
    }
  });
});
