import { expect } from 'chai';
import { extractMbox, splitMbox } from '../../../src/pipeline/formats/email.js';

const mbox = [
  'From alice@example.com Mon Jan  1 00:00:00 2024',
  'From: alice@example.com',
  'Subject: First',
  '',
  'Hello there.',
  '>From the quoted line, not a separator',
  '',
  'From bob@example.com Tue Jan  2 00:00:00 2024',
  'From: bob@example.com',
  'Subject: Second',
  '',
  'Second body.',
  '',
].join('\n');

describe('splitMbox', () => {
  it('splits at From_ lines after blank lines and unquotes >From', () => {
    const messages = splitMbox(Buffer.from(mbox)).map((b) => b.toString());
    expect(messages).to.have.length(2);
    expect(messages[0]).to.match(/^From: alice@example.com\nSubject: First/);
    expect(messages[0]).to.include('\nFrom the quoted line, not a separator');
    expect(messages[1]).to.match(/^From: bob@example.com/);
  });
});

describe('extractMbox', () => {
  it('indexes every message; a multi-message mailbox has no single title', async () => {
    const result = await extractMbox({ bytes: Buffer.from(mbox), extension: 'mbox', maxTextChars: 10_000 });
    if (!result.ok) expect.fail(result.reason);
    expect(result.text).to.include('Subject: First').and.include('Second body.');
    expect(result.metadata.messages).to.equal(2);
    expect(result.metadata.title).to.equal(undefined);
  });
});
