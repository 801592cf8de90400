import { expect } from 'chai';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { pdfDate } from '../../../src/pipeline/formats/pdf.js';
import { parseFile } from '../../../src/pipeline/stages/parse.js';
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

/** A one-page PDF: `text` on the page and the given annotation dictionaries on it (objects 5, 6, ...). */
function pdfWithAnnotations(text: string, annotations: string[]): Buffer {
  const stream = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  const annots = annotations.map((_, i) => `${5 + i} 0 R`).join(' ');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Count 1 /Kids [3 0 R] >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> /Annots [${annots}] >>`,
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    ...annotations,
  ];
  let out = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const at = out.length;
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return at;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

describe('PDF annotations', () => {
  it('reads the notes marked printable, under a link that covers the text (a note marked not to print is left out)', async () => {
    // Annotations are read with the print intent: with the display intent pdf.js extracts the page's text again
    // under every visible link or highlight (src/pipeline/formats/pdf.ts), and would list the screen-only note too.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'filesift-pdf-'));
    try {
      const file = path.join(dir, 'annotated.pdf');
      writeFileSync(
        file,
        pdfWithAnnotations('Linked words on the page', [
          '<< /Type /Annot /Subtype /Link /Rect [70 710 300 740] /F 4 /Border [0 0 0] /A << /S /URI /URI (https://example.org/) >> >>',
          '<< /Type /Annot /Subtype /Text /Rect [400 700 420 720] /F 4 /Contents (A printable margin note) >>',
          '<< /Type /Annot /Subtype /Text /Rect [430 700 450 720] /F 0 /Contents (A screen-only margin note) >>',
        ]),
      );
      const outcome = await parseFile(file, { maxFileBytes: 1e6, maxTextChars: 1e6 });
      if (!outcome.ok) throw new Error(`not read: ${outcome.reason}`);
      expect(outcome.doc.text.match(/Linked words on the page/g)).to.have.length(1);
      expect(outcome.doc.text).to.include('A printable margin note');
      expect(outcome.doc.text).to.not.include('screen-only');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
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
