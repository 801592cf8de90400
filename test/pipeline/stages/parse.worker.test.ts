import { expect } from 'chai';
import { Worker } from 'node:worker_threads';
import type { ParseOutcome } from '../../../src/pipeline/types.js';
import { sharedPath } from '../../helpers/shared.js';

/** The pool runs parseFile in worker_threads: pdf.js's fake worker, cfb, yauzl etc. must all work there. */
describe('parseFile inside a worker thread', () => {
  let worker: Worker;
  beforeEach(() => {
    worker = new Worker(new URL('../fixtures/parse-worker.js', import.meta.url));
  });
  afterEach(async () => {
    await worker.terminate();
  });

  const run = (paths: string[]) =>
    new Promise<ParseOutcome[]>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.postMessage(paths);
    });

  it('parses every container format, twice in a row in the same thread', async () => {
    const files = [
      ['pdf', 'testJournalParser.pdf', 'Electrostatic'],
      ['docx', 'testWORD_embedded_pics.docx', 'This is a footnote'],
      ['odt', 'testOpenOffice2.odt', 'NeoOffice'],
      ['epub', 'testEPUB.epub', 'chapter One'],
      ['msg', 'testMSG.msg', 'type detection'],
      ['xls', 'jxl.xls', 'Bilko'],
      ['txt', 'russian.cp866.txt', 'Однажды'],
      ['eml', 'testRFC822_dkim.eml', 'We lost the game'],
    ];
    const paths = files.map(([dir, name]) => sharedPath('datasets', 'formats', dir as string, name as string));
    for (let round = 0; round < 2; round++) {
      const outcomes = await run(paths);
      outcomes.forEach((outcome, i) => {
        if (!outcome.ok) expect.fail(`${files[i]?.[1]}: ${outcome.code} ${outcome.reason}`);
        expect(outcome.doc.text).to.include(files[i]?.[2] as string);
      });
    }
  });

  it('returns failures as plain values across the thread boundary', async () => {
    const [encrypted] = await run([sharedPath('datasets', 'formats', 'odt', 'testODTEncrypted.odt')]);
    expect(encrypted).to.deep.include({ ok: false, code: 'encrypted' });
  });
});
