import { expect } from 'chai';
import { gzipSync } from 'node:zlib';
import { forEachEngine } from '../../helpers/engines.js';
import { tempTree, type TempTree } from '../../helpers/files.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { docx } from '../../helpers/torture-files.js';
import { writeTar } from '../../helpers/tar-writer.js';
import { writeZip } from '../../helpers/zip-writer.js';

interface Result {
  file: { filename: string };
  snippet: string;
}

forEachEngine('archive members through the service', (engine) => {
  let t: TestService;
  let tree: TempTree;
  before(async () => {
    t = await startTestService(engine);
    tree = await tempTree({
      'backup.zip': writeZip([
        { name: 'letters/thanks.docx', data: docx('<w:p><w:r><w:t>Thank you for the quetzal feathers you sent last spring.</w:t></w:r></w:p>') },
        { name: 'notes.txt', data: 'Shopping: bread, milk and candles.' },
      ]),
      'sources.tgz': gzipSync(await writeTar([{ name: 'src/main.c', data: '/* The axolotl scheduler wakes every tick. */\nint main(void) { return 0; }' }])),
      'plain.txt': 'Nothing about exotic birds here.',
    });
    await t.request('POST', '/api/index/directory', { directory_path: tree.root });
    await t.service.indexing.settled();
  });
  after(async () => {
    await tree.remove();
    await t.destroy();
  });

  async function search(query: string): Promise<Result[]> {
    const res = await t.request('POST', '/api/search/', { query });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    return res.body.results as Result[];
  }

  it('finds an archive by a word that only a member holds, the snippet from that member', async () => {
    const results = await search('quetzal feathers');
    const [hit, ...rest] = results;
    expect(hit?.file.filename).to.equal('backup.zip');
    expect(rest.map((r) => r.file.filename)).not.to.include('plain.txt');
    expect(hit?.snippet).to.contain('letters/thanks.docx] Thank you for the quetzal feathers');

    const [tar] = await search('axolotl');
    expect(tar?.file.filename).to.equal('sources.tgz');

    // 'thanks' is only in a member's name.
    const [byName] = await search('thanks');
    expect(byName?.file.filename).to.equal('backup.zip');
  });

  it("records the archive's members in its metadata and shows each member's path in its content", async () => {
    const [known] = await t.service.store.api.files.known([tree.path('backup.zip')]);
    const file = await t.request('GET', `/api/files/${known!.id}`);
    expect(file.body).to.include({ status: 'indexed', indexed_as: 'content', format: 'zip', text_truncated: false });
    expect(file.body.metadata).to.include({ members: 2, membersRead: 2, encryptedMembers: 0 });
    const content = await t.request('GET', `/api/files/${known!.id}/content`);
    expect(JSON.stringify(content.body)).to.contain('[letters/thanks.docx]');
  });
});
