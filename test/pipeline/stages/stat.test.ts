import { expect } from 'chai';
import { mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { statFile } from '../../../src/pipeline/stages/stat.js';

describe('statFile', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'filesift-stat-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('returns the file facts with ISO dates and a lower-case extension', async () => {
    const file = path.join(dir, 'Report.Final.PDF');
    writeFileSync(file, 'twelve bytes');
    const when = new Date('2024-03-01T10:20:30.000Z');
    utimesSync(file, when, when);
    const outcome = await statFile(file);
    if (!outcome.ok) expect.fail(outcome.reason);
    expect(outcome.facts).to.include({ path: file, filename: 'Report.Final.PDF', extension: 'pdf', size: 12, modified: when.toISOString(), accessed: when.toISOString() });
    expect(Number.isNaN(Date.parse(outcome.facts.created))).to.equal(false);
  });

  it('gives no extension for dotfiles and extension-less names', async () => {
    writeFileSync(path.join(dir, '.bashrc'), '');
    writeFileSync(path.join(dir, 'Makefile'), '');
    const dotfile = await statFile(path.join(dir, '.bashrc'));
    const plain = await statFile(path.join(dir, 'Makefile'));
    expect(dotfile.ok && dotfile.facts.extension).to.equal('');
    expect(plain.ok && plain.facts.extension).to.equal('');
  });

  it('resolves relative paths to absolute ones', async () => {
    writeFileSync(path.join(dir, 'rel.txt'), 'x');
    const outcome = await statFile(path.relative(process.cwd(), path.join(dir, 'rel.txt')));
    expect(outcome.ok && outcome.facts.path).to.equal(path.join(dir, 'rel.txt'));
  });

  it('reports missing files, directories and dangling links as failures', async () => {
    symlinkSync(path.join(dir, 'gone'), path.join(dir, 'dangling'));
    const missing = await statFile(path.join(dir, 'missing'));
    const directory = await statFile(dir);
    const dangling = await statFile(path.join(dir, 'dangling'));
    expect(missing.ok ? 'ok' : missing.code).to.equal('not_found');
    expect(directory.ok ? 'ok' : directory.code).to.equal('not_a_file');
    expect(dangling.ok ? 'ok' : dangling.code).to.equal('not_a_file'); // a link is never followed
  });
});
