import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseFile } from '../../../src/pipeline/stages/parse.js';
import type { ParseOutcome } from '../../../src/pipeline/types.js';
import { sharedPath } from '../../helpers/shared.js';

const CODES = ['encrypted', 'corrupt', 'unreadable', 'not_found', 'not_a_file'];

function assertValue(outcome: ParseOutcome, label: string): void {
  if (outcome.ok) {
    expect(outcome.doc.text, label).to.be.a('string');
    expect(outcome.doc.contentHash, label).to.match(/^[0-9a-f]{64}$/);
  } else {
    expect(CODES, label).to.include(outcome.code);
    expect(outcome.reason, label).to.be.a('string').and.not.equal('');
    expect(outcome.facts, label).to.be.an('object');
  }
}

/**
 * Damaged copies of every dataset document (cut in half; 256 bytes overwritten mid-file) must come back as
 * values (a document or a failure), never as a throw or a hang, with the same extension as the original.
 */
describe('parseFile on damaged copies of the dataset', () => {
  const root = sharedPath('datasets', 'formats');
  const files = readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => readdirSync(path.join(root, d.name)).map((f) => path.join(root, d.name, f)));
  let dir: string;
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'filesift-damaged-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('covers the whole dataset', () => {
    expect(files).to.have.length(107);
  });

  it('returns a value for every truncated document, and "corrupt" for truncated ZIP containers', async () => {
    for (const [i, file] of files.entries()) {
      const bytes = readFileSync(file);
      const copy = path.join(dir, `cut-${i}${path.extname(file)}`);
      writeFileSync(copy, bytes.subarray(0, Math.floor(bytes.length / 2)));
      const outcome = await parseFile(copy, { maxFileBytes: 1e8, maxTextChars: 100_000 });
      assertValue(outcome, file);
      // Half a ZIP has no central directory: every ZIP-based format must say so.
      if (bytes[0] === 0x50 && bytes[1] === 0x4b) expect(outcome.ok ? 'ok' : outcome.code, file).to.equal('corrupt');
    }
  });

  it('returns a value for every document with garbage in the middle', async () => {
    for (const [i, file] of files.entries()) {
      const bytes = Buffer.from(readFileSync(file));
      const start = Math.floor(bytes.length * 0.6);
      bytes.fill(0xa5, start, Math.min(bytes.length, start + 256));
      const copy = path.join(dir, `garbled-${i}${path.extname(file)}`);
      writeFileSync(copy, bytes);
      assertValue(await parseFile(copy, { maxFileBytes: 1e8, maxTextChars: 100_000 }), file);
    }
  });
});
