import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { forEachEngine } from '../helpers/engines.js';
import { tempTree, type TempTree } from '../helpers/files.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** A one-page PDF whose Info dictionary has `author` (a PDF literal string: \000 is a NUL byte). */
function pdfWithAuthor(author: string): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Count 1 /Kids [3 0 R] >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    null, // the content stream, below
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Title (Tide tables) /Author (${author}) >>`,
  ];
  const stream = 'BT /F1 12 Tf 72 720 Td (Tide tables for the northern harbour) Tj ET';
  objects[3] = `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`;
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

forEachEngine('indexing a file', (engine) => {
  let t: TestService;
  let tree: TempTree;
  before(async () => {
    t = await startTestService(engine);
    tree = await tempTree({
      'tides.pdf': pdfWithAuthor('Harbour\\000Master'),
      'logbook.txt.gz': gzipSync('The lighthouse keeper logs every passing vessel in the harbour register.\n'),
      'picture.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]),
    });
  });
  after(async () => {
    await tree.remove();
    await t.destroy();
  });

  async function record(name: string): Promise<Record<string, unknown>> {
    const [known] = await t.service.store.api.files.known([tree.path(name)]);
    if (!known) throw new Error(`${name} is not in the index`);
    const res = await t.request('GET', `/api/files/${known.id}`);
    expect(res.status).to.equal(200);
    return res.body as Record<string, unknown>;
  }

  it('indexes every file: a NUL in metadata is dropped, compressed text is read, and a file without text says so', async () => {
    const run = t.service.indexing.startDirectory(tree.root, { kind: 'directory', force: false });
    await t.service.indexing.settled();
    expect(run.counts).to.include({ processed: 3, indexed: 3, failed: 0, name_only: 1 });

    const pdf = await record('tides.pdf');
    expect(pdf).to.include({ status: 'indexed', indexed_as: 'content' });
    expect(pdf.metadata).to.include({ author: 'HarbourMaster' });

    const gz = await record('logbook.txt.gz');
    expect(gz).to.include({ status: 'indexed', indexed_as: 'content', format: 'text' });
    expect(gz.metadata).to.include({ compression: 'gzip' });
    const content = await t.request('GET', `/api/files/${gz.id as number}/content`);
    expect(JSON.stringify(content.body)).to.contain('harbour register');

    const png = await record('picture.png');
    expect(png).to.include({ status: 'indexed', indexed_as: 'name_only', content_length: 0 });
    expect(png.note).to.be.a('string').and.not.equal('');

    const stats = await t.request('GET', '/api/files/stats');
    expect(stats.body).to.include({ total_files: 3, failed_files: 0, name_only_files: 1 });
  });
});
